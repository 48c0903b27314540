// Package joinlib exports a helper that runs two functions on goroutines
// of their own and waits for both: its SpawnsFact says it joins, so the
// contexts rooted at its call sites are joined by the call's return.
package joinlib

import "sync"

func Both(f, g func()) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); f() }()
	go func() { defer wg.Done(); g() }()
	wg.Wait()
}
