// Package eventually: what testify's Eventually condition does happens
// before the code that runs only after Eventually returned true: past
// require.Eventually (a timeout ends the test with FailNow), or on the
// true branch of assert.Eventually. Unordered: code after an
// assert.Eventually whose result is ignored (a timeout returns false
// and the test goes on with a run of the condition still going), a
// deferred call registered before the Eventually (it runs after a
// timeout's FailNow too), code of another goroutine than the caller's,
// and an assert.Eventually in a loop (an earlier call's run may still
// be going). EventuallyWithT is ordered as Eventually is; Never is not
// (it returns true on a timeout, with a run possibly still going).
package eventually

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func a(string) {}
func b(string) {}

func TestRequire(t *testing.T) {
	require.Eventually(t, func() bool {
		a("require")
		return true
	}, time.Second, time.Millisecond)
	b("require") // want `^require: a before b by wait$`
}

func TestMethod(t *testing.T) {
	r := require.New(t)
	r.Eventually(func() bool {
		a("method")
		return true
	}, time.Second, time.Millisecond)
	defer func() {
		b("method") // want `^method: a before b by wait$`
	}()
}

func TestAssertTrue(t *testing.T) {
	if assert.Eventually(t, func() bool {
		a("asserttrue")
		return true
	}, time.Second, time.Millisecond) {
		b("asserttrue") // want `^asserttrue: a before b by wait$`
	}
}

func TestAssertNot(t *testing.T) {
	if !assert.Eventually(t, func() bool {
		a("assertnot")
		return true
	}, time.Second, time.Millisecond) {
		return
	}
	b("assertnot") // want `^assertnot: a before b by wait$`
}

func TestAssertIgnored(t *testing.T) {
	assert.Eventually(t, func() bool {
		a("ignored")
		return true
	}, time.Second, time.Millisecond)
	b("ignored") // want `^ignored: unordered$`
}

func TestDeferredBefore(t *testing.T) {
	defer func() {
		b("deferred") // want `^deferred: unordered$`
	}()
	require.Eventually(t, func() bool {
		a("deferred")
		return true
	}, time.Second, time.Millisecond)
}

func TestOtherGoroutine(t *testing.T) {
	done := make(chan bool)
	go func() {
		b("other") // want `^other: unordered$`
		done <- true
	}()
	require.Eventually(t, func() bool {
		a("other")
		return true
	}, time.Second, time.Millisecond)
	<-done
}

func TestAssertLoop(t *testing.T) {
	for i := 0; i < 2; i++ {
		if assert.Eventually(t, func() bool {
			a("loop")
			return true
		}, time.Second, time.Millisecond) {
			b("loop") // want `^loop: unordered$`
		}
	}
}

func TestWithT(t *testing.T) {
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		a("witht")
	}, time.Second, time.Millisecond)
	b("witht") // want `^witht: a before b by wait$`
}

func TestAssertWithT(t *testing.T) {
	if assert.EventuallyWithT(t, func(c *assert.CollectT) {
		a("assertwitht")
	}, time.Second, time.Millisecond) {
		b("assertwitht") // want `^assertwitht: a before b by wait$`
	}
}

func TestAssertWithTIgnored(t *testing.T) {
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		a("witht ignored")
	}, time.Second, time.Millisecond)
	b("witht ignored") // want `^witht ignored: unordered$`
}

// Never returns true when its timer fires, with a run of the condition
// possibly still going: unordered, past require's call too.
func TestNever(t *testing.T) {
	require.Never(t, func() bool {
		a("never")
		return false
	}, time.Second, time.Millisecond)
	b("never") // want `^never: unordered$`
}
