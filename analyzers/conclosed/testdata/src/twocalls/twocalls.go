// Package twocalls: fsutil's testCopySimple (held-out rehearsal 46)
// makes a pair of connections per round, a new channel pair per call of
// the constructor, assigned to the same variables; each round's
// goroutine closes its pair's send channel once, and the round is joined
// before the next pair is made. The first goroutine reads the variables
// before the second assignment, so the two closes are of two channels
// (Rounds; Tasks, with an errgroup's tasks as fsutil: silent). Reported: rounds not joined (Unjoined: the first
// goroutine may read the second pair), and a goroutine that reads the
// variable only after its Done (Late): either may close the second
// round's channel twice.
package twocalls

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"
)

type Conn struct {
	recv chan int
	send chan int
}

func pair() (*Conn, *Conn) {
	a := make(chan int, 4)
	b := make(chan int, 4)
	return &Conn{recv: a, send: b}, &Conn{recv: b, send: a}
}

func (c *Conn) closeSend() {
	close(c.send) // want `close of closed channel: c.send may also be closed by \(\*Conn\).closeSend`
}

func (c *Conn) put(v int) {
	c.send <- v // want `send on closed channel: c.send may be closed concurrently by \(\*Conn\).closeSend`
}

func sum(c *Conn) int {
	s := 0
	for v := range c.recv {
		s += v
	}
	return s
}

// Rounds joins each round's sender before it makes the next pair.
func Rounds() int {
	var wg sync.WaitGroup
	s1, s2 := pair()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer s1.closeSend()
		s1.put(1)
	}()
	n := sum(s2)
	wg.Wait()
	s1, s2 = pair()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer s1.closeSend()
		s1.put(2)
	}()
	n += sum(s2)
	wg.Wait()
	return n
}

// Tasks runs each round's sender as an errgroup task and waits for the
// group before the next pair.
func Tasks() error {
	eg, ctx := errgroup.WithContext(context.Background())
	s1, s2 := pair()
	eg.Go(func() error {
		defer s1.closeSend()
		s1.put(1)
		return ctx.Err()
	})
	eg.Go(func() error {
		sum(s2)
		return nil
	})
	if err := eg.Wait(); err != nil {
		return err
	}
	eg, ctx = errgroup.WithContext(context.Background())
	s1, s2 = pair()
	eg.Go(func() error {
		defer s1.closeSend()
		s1.put(2)
		return ctx.Err()
	})
	eg.Go(func() error {
		sum(s2)
		return nil
	})
	return eg.Wait()
}

// Unjoined makes the second pair while the first sender may not yet
// have read s1.
func Unjoined() {
	s1, _ := pair()
	go func() {
		defer s1.closeSend()
		s1.put(1)
	}()
	s1, _ = pair()
	go func() {
		defer s1.closeSend()
		s1.put(2)
	}()
}

// Late's first goroutine reads s1 after its Done, when the second pair
// may be there.
func Late() {
	var wg sync.WaitGroup
	s1, _ := pair()
	wg.Add(1)
	go func() {
		wg.Done()
		s1.closeSend()
	}()
	wg.Wait()
	s1, _ = pair()
	go func() {
		s1.put(2)
		s1.closeSend()
	}()
}
