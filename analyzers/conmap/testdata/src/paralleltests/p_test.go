package paralleltests

import "testing"

func TestDelete(t *testing.T) {
	tb := New()
	t.Run("empty", func(t *testing.T) {
		t.Parallel()
		tb.Delete("")
	})
	t.Run("also empty", func(t *testing.T) {
		t.Parallel()
		tb.Delete("")
	})
}
