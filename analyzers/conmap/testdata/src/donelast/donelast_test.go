// Package donelast: workers that call wg.Done() last, not deferred, after
// work that reaches a map several calls down (casbin's TestSyncCache
// workers, which panic on a wrong result before their Done). A path
// that panics ends the process, so every worker that returns has done
// its work when its Done runs, and the test's writes after Wait follow
// them all. A worker with a call after its Done may still write when the
// Wait returns: reported.
package donelast

import (
	"sync"
	"testing"
)

type store struct{ m map[string]int }

func (s *store) put(k string) { s.m[k]++ }

func (s *store) add(k string)   { s.put(k) }
func (s *store) apply(k string) { s.add(k) }
func (s *store) run(k string)   { s.apply(k) }
func (s *store) do(k string)    { s.run(k) }

var mu sync.Mutex

func locked(s *store, k string) {
	mu.Lock()
	defer mu.Unlock()
	s.do(k)
}

func TestDoneLast(t *testing.T) {
	s := &store{m: map[string]int{}}
	var wg sync.WaitGroup
	wg.Add(4)
	for range 4 {
		go func() {
			locked(s, "a")
			if s.m == nil {
				panic("never reached")
			}
			wg.Done()
		}()
	}
	wg.Wait()
	s.put("b")
}

type other struct{ m map[string]int }

func (o *other) put(k string) { o.m[k]++ } // want `concurrent map read and map write: o.m is written here`

func TestCallAfterDone(t *testing.T) {
	s := &other{m: map[string]int{}}
	var wg sync.WaitGroup
	wg.Add(4)
	for range 4 {
		go func() {
			wg.Done()
			s.put("c")
		}()
	}
	wg.Wait()
	s.put("b")
}
