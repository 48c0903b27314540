package racecounter

import "testing"

func TestRecord(t *testing.T) {
	s := &Stats{keys: make(map[string]int)}
	Record(s, []string{"a", "b"})
	if s.Hits() != 2 {
		t.Errorf("hits = %d, want 2", s.Hits())
	}
}
