package atomicinit

import "time"

// StartStored is RIGHT: the bandwidth is stored before the go statement.
func StartStored(delay time.Duration) *Handle {
	h := &Handle{limit: make(chan int, 1)}
	h.band.Store(&Bandwidth{limit: 10})
	go h.run(delay)
	return h
}
