package freshinit

import "testing"

// TestTwo makes a second collector while the first one's goroutine may
// read its own Headers: the second one's Init runs before anything but
// NewCollector holds it.
func TestTwo(t *testing.T) {
	c := NewCollector()
	c.Async = true
	c.Visit("a")
	c2 := NewCollector()
	c2.Visit("b")
	c.Wait()
	c2.Wait()
}
