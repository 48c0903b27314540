package oscsmax

import "testing"

func TestParallel(t *testing.T) {
	if got := Parallel([]int{3, 9, 9}); got != 9 {
		t.Errorf("max %d, want 9", got)
	}
}
