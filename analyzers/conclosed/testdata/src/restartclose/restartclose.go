// Package restartclose: a loop that restarts a watcher goroutine when the
// last one returns, each closing the store's ready channel (kine's
// btreeWatcher). The goroutines run one at a time, but the second close
// panics all the same: reported, one order is enough for a close.
package restartclose

type store struct{ ready chan struct{} }

func (s *store) watch() error {
	close(s.ready) // want `close of closed channel: s.ready may also be closed by \(\*store\).watch`
	return nil
}

// Start restarts the watcher until quit.
func (s *store) Start(quit chan struct{}) {
	go func() {
		for {
			errc := make(chan error, 1)
			go func() { errc <- s.watch() }()
			select {
			case <-errc:
			case <-quit:
				return
			}
		}
	}()
}

// New makes a store and starts its watcher.
func New(quit chan struct{}) *store {
	s := &store{ready: make(chan struct{})}
	s.Start(quit)
	return s
}
