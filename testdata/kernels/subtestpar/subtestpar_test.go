package subtestpar

import "testing"

func TestGroup(t *testing.T) {
	var g Group
	t.Run("batch", func(t *testing.T) {
		t.Run("one", func(t *testing.T) {
			t.Parallel()
			g.Go(func() int { return 1 })
		})
		g.Wait() // BUG: t.Run returned at t.Parallel; "one" adds after this Wait
	})
}
