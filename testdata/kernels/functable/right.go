package functable

import "sync"

var (
	safeMu    sync.Mutex
	safeTotal int
)

// safeHandlers is handlers with the total under safeMu.
var safeHandlers = []struct {
	name string
	run  func(n int)
}{
	{"add", func(n int) { safeMu.Lock(); safeTotal += n; safeMu.Unlock() }},
	{"sub", func(n int) { safeMu.Lock(); safeTotal -= n; safeMu.Unlock() }},
}

// SafeApply is Apply over safeHandlers.
func SafeApply(n int) int {
	var wg sync.WaitGroup
	for _, h := range safeHandlers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.run(n)
		}()
	}
	wg.Wait()
	safeMu.Lock()
	defer safeMu.Unlock()
	return safeTotal
}
