package model

// eventually holds testify's Eventually assertions by full name, each
// with whether it ends the test on a timeout (require's call FailNow)
// rather than returning false (assert's).
var eventually = map[string]bool{
	"github.com/stretchr/testify/require.Eventually":                true,
	"github.com/stretchr/testify/require.Eventuallyf":               true,
	"(*github.com/stretchr/testify/require.Assertions).Eventually":  true,
	"(*github.com/stretchr/testify/require.Assertions).Eventuallyf": true,
	"github.com/stretchr/testify/assert.Eventually":                 false,
	"github.com/stretchr/testify/assert.Eventuallyf":                false,
	"(*github.com/stretchr/testify/assert.Assertions).Eventually":   false,
	"(*github.com/stretchr/testify/assert.Assertions).Eventuallyf":  false,

	"github.com/stretchr/testify/require.EventuallyWithT":                true,
	"github.com/stretchr/testify/require.EventuallyWithTf":               true,
	"(*github.com/stretchr/testify/require.Assertions).EventuallyWithT":  true,
	"(*github.com/stretchr/testify/require.Assertions).EventuallyWithTf": true,
	"github.com/stretchr/testify/assert.EventuallyWithT":                 false,
	"github.com/stretchr/testify/assert.EventuallyWithTf":                false,
	"(*github.com/stretchr/testify/assert.Assertions).EventuallyWithT":   false,
	"(*github.com/stretchr/testify/assert.Assertions).EventuallyWithTf":  false,
}

// Eventually reports whether name is testify's Eventually (of package
// require or assert, a function or a method of Assertions), which runs
// its condition on a new goroutine at each tick, one at a time (the next
// starts only once the previous one's result was received), and returns
// true only after it received true from the last one: every run of the
// condition has ended by then. On a timeout, assert's returns false and
// require's calls FailNow, so that code after it never runs (failNow).
// The releases read, v1.7.0 through v1.12.1, all have this shape (a run
// per tick, the next tick taken only after the result came back).
//
// EventuallyWithT (from v1.8.x; v1.8.4, v1.9.0, v1.10.0, v1.11.0, v1.11.1
// and v1.12.1 read) has it too: its condition takes a *CollectT, and it
// returns true only on receiving a run's result that collected no error,
// sent after the condition returned (v1.8.4) or by a function the run
// defers (later releases, so that a FailNow on the CollectT, which ends
// the run with runtime.Goexit, still sends a failed result). Never does
// not: it returns true when its timer fires, while a run started at the
// last tick may still be going, so it is not named here.
func Eventually(name string) (failNow, ok bool) {
	failNow, ok = eventually[name]
	return failNow, ok
}
