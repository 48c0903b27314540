package kb2

import (
	"slices"
	"testing"
	"time"
)

// TestAddLog runs two sessions that add to the counter, the second normally
// 2 ms after the first. Each logged value must be a distinct partial sum.
func TestAddLog(t *testing.T) {
	s := &Stats{}
	done := make(chan bool)
	go func() {
		s.Add(1)
		done <- true
	}()
	go func() {
		time.Sleep(2 * time.Millisecond)
		s.Add(2)
		done <- true
	}()
	<-done
	<-done
	got := s.Logged()
	if !slices.Equal(got, []int{1, 3}) && !slices.Equal(got, []int{2, 3}) {
		t.Errorf("log %v, want each session's own sum", got)
	}
}
