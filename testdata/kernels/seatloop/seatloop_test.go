package seatloop

import (
	"fmt"
	"sync"
	"testing"
)

// TestSetGet runs two workers; each sets its own seats (even, odd) and
// reads each back at once.
func TestSetGet(t *testing.T) {
	s := new(Seats)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < 40; i += 2 {
				name := fmt.Sprint("w", w, "-", i)
				s.Set(i, name)
				if got := s.Get(i); got != name {
					errs[w] = fmt.Errorf("seat %d is %q, want %q", i, got, name)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
