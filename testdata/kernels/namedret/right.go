package namedret

import "sync"

// SafeCount waits for the counting goroutine before its bare return.
func SafeCount(items []string) (n int) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, it := range items {
			if it != "" {
				n++
			}
		}
	}()
	<-done
	return
}

// DeferCount returns with a bare return after its deferred Wait: the
// caller reads n after the deferred calls, so the read follows the count.
func DeferCount(items []string) (n int) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, it := range items {
			if it != "" {
				n++
			}
		}
	}()
	defer wg.Wait()
	return
}
