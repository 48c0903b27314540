package replychan

import (
	"testing"
	"time"
)

func run(t *testing.T, get func(*Server, string, time.Duration) (string, error)) {
	s := NewServer(map[string]string{"k": "v"})
	defer s.Stop()
	if v, err := get(s, "k", time.Second); err != nil || v != "v" {
		t.Errorf("get k = %q, %v; want v", v, err)
	}
}

// TestGet runs the WRONG Get.
func TestGet(t *testing.T) { run(t, (*Server).Get) }

// TestGetBuffered runs the RIGHT GetBuffered.
func TestGetBuffered(t *testing.T) { run(t, (*Server).GetBuffered) }
