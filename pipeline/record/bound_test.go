package record

import (
	"testing"
	"time"
)

// TestBound checks that a forced run is bounded even when -timeout is 0,
// which go test, and so precog, takes as no limit.
func TestBound(t *testing.T) {
	for _, tc := range []struct{ timeout, bound, want time.Duration }{
		{0, time.Minute, time.Minute},
		{time.Second, time.Minute, time.Second},
		{time.Hour, time.Minute, time.Minute},
	} {
		f := &GoTestFlags{Timeout: tc.timeout}
		if got := f.Bound(tc.bound); got != tc.want {
			t.Errorf("-timeout %v, bound %v: %v, want %v", tc.timeout, tc.bound, got, tc.want)
		}
	}
}
