package disjoint

import (
	"slices"
	"testing"
)

func TestSquares(t *testing.T) {
	if got := Squares([]int{1, 2, 3, 4}); !slices.Equal(got, []int{1, 4, 9, 16}) {
		t.Errorf("squares %v", got)
	}
}
