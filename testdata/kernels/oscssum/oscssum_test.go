package oscssum

import "testing"

func TestParallel(t *testing.T) {
	if got := Parallel([][]int{{1, 2}, {3, 4}, {5}}); got != 15 {
		t.Errorf("sum %d, want 15", got)
	}
}
