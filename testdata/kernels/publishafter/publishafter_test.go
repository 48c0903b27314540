package publishafter

import (
	"testing"
	"time"
)

// TestPublish sends one request to an agent's goroutine and reads the
// packet back once it is there.
func TestPublish(t *testing.T) {
	a := new(Agent)
	go a.Serve([][]byte{{3, 7, 8}})
	p := a.Request(0)
	for p == nil {
		time.Sleep(time.Millisecond)
		p = a.Request(0)
	}
	if p.Flags != 3 {
		t.Errorf("flags %d, want 3", p.Flags) // want `may be read before it is set`
	}
	if len(p.Vars) != 2 || p.Vars[1] != 8 {
		t.Errorf("vars %v, want [7 8]", p.Vars)
	}
}
