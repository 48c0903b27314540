package controls

import "sync"

// OnceSession is the session of package transmission whose bandwidth object
// is created on first use by whichever goroutine gets there first.
type OnceSession struct {
	bandOnce sync.Once
	band     *Bandwidth
	done     chan int
}

func (h *OnceSession) bandwidth() *Bandwidth {
	h.bandOnce.Do(func() { h.band = &Bandwidth{} })
	return h.band
}

// NewOnceSession starts the event loop, which may pulse before or after the
// constructor touches the bandwidth object.
func NewOnceSession() *OnceSession {
	h := &OnceSession{done: make(chan int, 1)}
	go func() {
		b := h.bandwidth()
		h.done <- b.bytes
	}()
	h.bandwidth()
	return h
}
