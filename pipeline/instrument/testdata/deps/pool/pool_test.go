package pool

import "testing"

func TestSum(t *testing.T) {
	if got, err := Sum([]int{1, 2, 3}); got != 6 || err != nil {
		t.Fatalf("Sum = %d, %v; want 6, nil", got, err)
	}
}
