package subtests

import "testing"

func TestSequential(t *testing.T) { // want `^ctx: caller$`
	t.Run("seq", func(t *testing.T) {}) // want `^ctx: caller$`
}

func TestParallelSubtest(t *testing.T) { // want `^ctx: caller$`
	t.Run("par", func(t *testing.T) { // want `^ctx: parallel test TestParallelSubtest\$1$`
		t.Parallel()
	})
}

func TestTable(t *testing.T) { // want `^ctx: caller$`
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) { // want `^ctx: parallel test TestTable\$1 multi$`
			t.Parallel()
		})
	}
}

func TestParallel(t *testing.T) { // want `^ctx: parallel test TestParallel$`
	t.Parallel()
}

// unusedHelper is called by no test and used as a value nowhere: it never
// runs (its call of Step is not one of the package's goroutines').
func unusedHelper() { Step() } // want `^ctx: none$`

// hooked is called by no test, but a variable holds it: whoever reads the
// variable may call it.
func hooked() { Step() } // want `^ctx: caller$`

var hook = hooked

// handed is called by no test, but it is handed to the package's API.
func handed() {} // want `^ctx: caller dynamic$`

func TestHanded(t *testing.T) { // want `^ctx: caller$`
	run(handed)
}

func run(f func()) { f() } // want `^ctx: caller$`

// A Cleanup's function runs on the test's goroutine once the test has
// ended, wherever it is registered: one a goroutine registers is not run
// on that goroutine.
func TestCleanups(t *testing.T) { // want `^ctx: caller$`
	t.Cleanup(func() {}) // want `^ctx: caller$`
	go func() {          // want `^ctx: go statement TestCleanups\$2$`
		t.Cleanup(func() {})                // want `^ctx: caller$`
		t.Run("seq", func(t *testing.T) {}) // want `^ctx: go statement TestCleanups\$2$`
	}()
}
