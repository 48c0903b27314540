// Package suiterun is a data race kernel whose test is a suite run the way
// testify's suite.Run runs one: a runner calls t.Run for each Test method
// and, on the subtest's goroutine, the suite's SetupTest, the method and
// TearDownTest, none of which names the subtest's *testing.T. testify does
// it from code precog does not instrument; RunSuite (suite.go), a test
// helper in package code, hands t.Run a method value: either way the
// subtest's goroutine starts with no TestStart to name its test (issue
// 18's held-out rehearsal: gofrs/flock's suite gave 70 false races between
// its subtests).
//
// The bug is racecounter's, in one of the suite's methods: Stats guards
// its map with a mutex but bumps its hit counter outside it. The negative
// control is the suite itself: each subtest's SetupTest writes the
// suite's fields that the previous subtest's methods read, and the test
// reads them after the subtests, all in order (t.Run returns once its
// subtest ended); TestAsync's goroutine reads them after SetupTest and
// before TearDownTest (a go statement, an atomic flag). precog test must
// report none of those (13 false races before the shim read a subtest's
// parent off its stack).
package suiterun

import "sync"

// Stats counts cache hits per key.
type Stats struct {
	mu   sync.Mutex
	keys map[string]int
	hits int
}

// NewStats returns empty Stats.
func NewStats() *Stats { return &Stats{keys: make(map[string]int)} }

// Hit records a hit on key.
func (s *Stats) Hit(key string) {
	s.mu.Lock()
	s.keys[key]++
	s.mu.Unlock()
	s.hits++ // should be inside the critical section
}

// Hits returns the number of hits.
func (s *Stats) Hits() int { return s.hits }

// Keys returns the number of keys hit.
func (s *Stats) Keys() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.keys)
}

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
