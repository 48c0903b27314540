package initpool

import "testing"

// TestDefault runs two jobs on the package's pool and two on a pool of
// its own.
func TestDefault(t *testing.T) {
	one := func() int { return 1 }
	if got := Default.Run(one, one); got != 4 {
		t.Errorf("sum %d, want 4", got)
	}
	if got := NewPool(WithScale(3)).Run(one, one); got != 12 {
		t.Errorf("sum %d, want 12", got)
	}
}
