package p

import "testing"

func TestThing(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		t.Log("in sub")
	})
}

func helper(t *testing.T) {}

func BenchmarkX(b *testing.B) {
	b.Run("s", func(b *testing.B) {})
}

func subtest(t *testing.T) {}

func TestTable(t *testing.T) {
	for _, f := range []func(*testing.T){subtest} {
		t.Run("f", f)
	}
	t.Run("g", subtest)
}

// walk stands for a helper such as datadriven.Walk that runs f in subtests.
func walk(t *testing.T, f func(t *testing.T, path string)) {}

func TestWalk(t *testing.T) {
	walk(t, func(t *testing.T, path string) {
		t.Log(path)
	})
	check := func(_ int, tb *testing.T) {}
	check(1, t)
}

// TestRunResult uses t.Run's result; a deferred t.Run and one in a go
// statement are left as they are (wrapping them would run t.Run at once).
func TestRunResult(t *testing.T) {
	if !t.Run("ok", subtest) {
		t.Fail()
	}
	ok := t.Run("again", subtest)
	_ = ok
	defer t.Run("last", subtest)
	go t.Run("apart", subtest)
}
