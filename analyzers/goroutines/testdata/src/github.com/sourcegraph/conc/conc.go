// Package conc is a stand-in with the API shape of
// github.com/sourcegraph/conc.
package conc

import "sync"

type WaitGroup struct {
	wg sync.WaitGroup
}

func (h *WaitGroup) Go(f func()) {
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		f()
	}()
}

func (h *WaitGroup) Wait() {
	h.wg.Wait()
}
