// Package joinedapart: two subtests of one test, each starting a worker
// that writes one shared map and waiting for it before it returns. The
// subtests run one after the other on the test's goroutine, so the first
// one's worker has ended before the second one's starts (go-mail's Send
// tests). Reported: a subtest that returns without waiting, and one that
// runs the other subtest's function while its own workers live.
package joinedapart

import (
	"sync"
	"testing"
)

type counts struct{ m map[int]int }

func (c *counts) add(i int) { c.m[i]++ }

func TestApart(t *testing.T) {
	c := &counts{m: map[int]int{}}
	t.Run("first", func(t *testing.T) {
		var wg sync.WaitGroup
		wg.Go(func() { c.add(1) })
		wg.Wait()
	})
	t.Run("second", func(t *testing.T) {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.add(2)
		}()
		wg.Wait()
	})
}

type tally struct{ m map[int]int }

func (c *tally) add(i int) { c.m[i]++ } // want `concurrent map read and map write: c.m is written here`

func TestNotJoined(t *testing.T) {
	c := &tally{m: map[int]int{}}
	t.Run("first", func(t *testing.T) {
		go c.add(1)
	})
	t.Run("second", func(t *testing.T) {
		var wg sync.WaitGroup
		wg.Go(func() { c.add(2) })
		wg.Wait()
	})
}

type score struct{ m map[int]int }

func (c *score) add(i int) { c.m[i]++ } // want `concurrent map read and map write: c.m is written here`

func second(c *score) {
	var wg sync.WaitGroup
	wg.Go(func() { c.add(2) })
	wg.Wait()
}

func TestNested(t *testing.T) {
	c := &score{m: map[int]int{}}
	t.Run("first", func(t *testing.T) {
		var wg sync.WaitGroup
		wg.Go(func() { c.add(1) })
		second(c)
		wg.Wait()
	})
}
