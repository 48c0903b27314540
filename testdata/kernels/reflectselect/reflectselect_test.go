package reflectselect

import "testing"

// TestFlush passes a value through the group, then flushes it.
func TestFlush(t *testing.T) {
	a := make(chan int)
	g := New(a)
	a <- 7
	if v := <-g.Out(); v != 7 {
		t.Errorf("got %d, want 7", v)
	}
	g.Flush()
	if n := len(g.cases); n != 1 {
		t.Errorf("%d cases after Flush, want 1", n)
	}
}
