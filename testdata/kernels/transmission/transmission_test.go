package transmission

import (
	"testing"
	"time"
)

// TestSessionInit starts a session, lets its event loop pulse once and
// closes it. The first pulse reads h.band 20 ms after the event loop
// starts; NewSession normally set it microseconds after the go statement.
func TestSessionInit(t *testing.T) {
	pulsed := make(chan struct{}, 1)
	h := NewSession(20*time.Millisecond, func() {
		select {
		case pulsed <- struct{}{}:
		default:
		}
	})
	<-pulsed
	h.Close()
	if got, want := h.Allowed(), 20000*1024; got != want {
		t.Errorf("allowed = %d bytes, want %d", got, want)
	}
}
