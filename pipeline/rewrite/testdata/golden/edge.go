package p

import (
	"context"
	"io"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

type Set[K comparable] struct {
	mu sync.Mutex
	m  map[K]struct{}
	ch chan K
}

func (s *Set[K]) Add(k K) {
	s.mu.Lock()
	s.m[k] = struct{}{}
	s.mu.Unlock()
	s.ch <- k
}

func Drain[T any](ch chan T, out *[]T) {
	for v := range ch {
		*out = append(*out, v)
	}
	close(ch)
}

type item struct {
	mu  *sync.RWMutex
	err error
	w   io.Writer
}

var (
	mu      sync.Mutex
	handler = func() {}
	state   int
	errs    []error
)

type lockedW struct{ sync.Mutex }

func (l *lockedW) Write(p []byte) (int, error) { return len(p), nil }

func edge(ctx context.Context, items []*item, ch chan int, tick *time.Ticker) error {
	mu.Lock()
	state = 1
	mu.Unlock()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case v, ok := <-ch:
			if !ok {
				continue
			}
			state = v
		case <-tick.C:
			continue loop
		}
	}
	var g errgroup.Group
	for _, it := range items {
		it := it
		g.Go(func() error {
			it.mu.RLock()
			defer it.mu.RUnlock()
			it.err = nil
			it.w = &lockedW{}
			return it.err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	g.Wait()
	go handler()
	errs = append(errs, io.EOF)
	var e error = io.EOF
	items[0].err = e
	items[0].err = io.ErrUnexpectedEOF
	items[0].w = new(lockedW)
	switch x := <-ch; x {
	case 1:
		state = x
	}
	f := mu.Lock
	f()
	mu.Unlock()
	return nil
}

func timeout(ch chan int, d time.Duration) int {
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		return -1
	}
}

// writers is a slice type of interface elements: the values appended are
// only assignable to its element type.
type writers []io.Writer

var ws writers

func addWriters(w *lockedW, more []io.Writer) {
	ws = append(ws, w)
	ws = append(ws /* a, b */, nil, io.Writer(w))
	ws = append(ws, io.Writer(w))
	ws = append(ws, more...)
}

// drainBlank discards what it receives through the blank identifier,
// which has no address.
func drainBlank(ch chan int, xs []int, m map[int]int) (n int) {
	for _ = range ch {
		n++
	}
	for _, _ = range xs {
		n++
	}
	for _, _ = range m {
		n++
	}
	_ = <-ch
	_, _ = <-ch
	select {
	case _ = <-ch:
	case _, _ = <-ch:
	}
	return n
}
