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
