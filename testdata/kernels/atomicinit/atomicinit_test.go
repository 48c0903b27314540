package atomicinit

import (
	"testing"
	"time"
)

func TestStart(t *testing.T) {
	if got := <-Start(20 * time.Millisecond).limit; got != 10 {
		t.Errorf("limit %d, want 10", got)
	}
}

func TestStartStored(t *testing.T) {
	if got := <-StartStored(20 * time.Millisecond).limit; got != 10 {
		t.Errorf("limit %d, want 10", got)
	}
}
