package serveafter

import "testing"

func TestAllowed(t *testing.T) {
	t.Setenv("ALLOWED", "a.example")
	setAllowed()
	if !allowed["a.example"] {
		t.Error("a.example not allowed")
	}
}
