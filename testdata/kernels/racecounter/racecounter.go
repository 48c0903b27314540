// Package racecounter is the data race kernel of a struct field: Stats
// guards its map with a mutex but bumps its hit counter outside it (issue
// 10, item 2). The lock orders the map accesses of the two goroutines, and
// must not hide the counter's race; the read in Hits after the Wait is
// ordered and must not be reported.
package racecounter

import "sync"

// Stats counts cache hits per key.
type Stats struct {
	mu   sync.Mutex
	keys map[string]int
	hits int
}

// Hit records a hit on key.
func (s *Stats) Hit(key string) {
	s.mu.Lock()
	s.keys[key]++
	s.mu.Unlock()
	s.hits++ // should be inside the critical section
}

// Hits returns the number of hits.
func (s *Stats) Hits() int { return s.hits }

// Record records hits on keys from one goroutine per key.
func Record(s *Stats, keys []string) {
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Hit(k)
		}()
	}
	wg.Wait()
}
