package upstream

import "testing"

// TestStore stores three records and reads them back.
func TestStore(t *testing.T) {
	recs := []byte("abc")
	l := Store(recs)
	for i, r := range recs {
		if got := l.buf[l.offsets[i]]; got != r {
			t.Errorf("record %d = %q, want %q", i, got, r)
		}
	}
}
