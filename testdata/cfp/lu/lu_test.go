package lu

import (
	"math"
	"testing"
)

func TestFactor(t *testing.T) {
	const n = 16
	for b, a := range Factor(3, n) {
		for i := 0; i < n; i++ {
			if d := a[i*n+i]; math.IsNaN(d) || d == 0 {
				t.Fatalf("block %d: pivot %d is %v", b, i, d)
			}
		}
	}
}
