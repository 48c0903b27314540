package crashmap

import "testing"

// TestFill fills a map from two goroutines.
func TestFill(t *testing.T) {
	m := make(map[int]int)
	Fill(m, 200000)
	if len(m) != 400000 {
		t.Errorf("len = %d, want 400000", len(m))
	}
}
