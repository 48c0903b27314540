package counter

import "testing"

func TestCount(t *testing.T) {
	if got := Count(4); got != 4 {
		t.Fatalf("Count(4) = %d", got)
	}
}
