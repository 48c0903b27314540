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
func Eventually(name string) (failNow, ok bool) {
	failNow, ok = eventually[name]
	return failNow, ok
}
