package fig8

import "testing"

// check checks that the functions ran want times since Count was before.
func check(t *testing.T, before, want int) {
	if n := Count() - before; n != want {
		t.Errorf("the functions ran %d times, want %d", n, want)
	}
}

func TestInput1(t *testing.T) {
	before := Count()
	Both(f1, f2)
	Both(f2, f3)
	Both(f2, f4)
	Both(f4, f5)
	check(t, before, 8)
}

func TestInput2(t *testing.T) {
	before := Count()
	Both(f1, f2)
	Both(f3, f4)
	Both(f3, f5)
	check(t, before, 6)
}

func TestInput3(t *testing.T) {
	before := Count()
	Both(f2, f3)
	Both(f3, f4)
	check(t, before, 4)
}
