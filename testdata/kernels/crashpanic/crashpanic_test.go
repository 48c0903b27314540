package crashpanic

import "testing"

// TestLast asks a goroutine for the last name, counting from 1.
func TestLast(t *testing.T) {
	r := &Registry{}
	r.Register("a")
	r.Register("b")
	done := make(chan string)
	go func() { done <- r.Nth(2) }()
	if got := <-done; got != "b" {
		t.Errorf("Nth(2) = %q, want b", got)
	}
}
