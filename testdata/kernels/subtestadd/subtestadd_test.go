package subtestadd

import "testing"

func TestRun(t *testing.T) {
	var g Group
	t.Run("one", func(t *testing.T) { g.Go(func() int { return 1 }) })
	t.Run("two", func(t *testing.T) { g.Go(func() int { return 2 }) })
	if n := g.Wait(); n != 3 {
		t.Errorf("sum %d, want 3", n)
	}
}

func FuzzGo(f *testing.F) {
	var g Group
	f.Add(1)
	f.Add(2)
	f.Fuzz(func(t *testing.T, n int) { g.Go(func() int { return n }) })
	g.Wait()
}
