package cache

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// parallel runs f on n goroutines and waits for them.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(i)
		}()
	}
	wg.Wait()
}

func TestPut(t *testing.T) {
	c := New(100)
	parallel(4, func(i int) { c.Put(fmt.Sprint(i), "v") })
	if c.Len() != 4 {
		t.Errorf("Len = %d, want 4", c.Len())
	}
}

func TestGet(t *testing.T) {
	c := New(100)
	c.Put("k", "v")
	parallel(4, func(int) {
		if v, ok := c.Get("k"); !ok || v != "v" {
			t.Errorf("Get = %q, %v", v, ok)
		}
	})
}

func TestGetPut(t *testing.T) {
	c := New(100)
	parallel(4, func(i int) {
		c.Put(fmt.Sprint(i%2), "v")
		c.Get(fmt.Sprint(i % 2))
	})
}

func TestEvict(t *testing.T) {
	c := New(2)
	parallel(4, func(i int) { c.Put(fmt.Sprint(i), "v") })
	if c.Len() != 2 {
		t.Errorf("Len = %d, want 2", c.Len())
	}
}

func TestReaders(t *testing.T) {
	c := New(10)
	for i := range 10 {
		c.Put(fmt.Sprint(i), "v")
	}
	parallel(8, func(i int) { c.Get(fmt.Sprint(i)) })
}

// TestCloseWhileWriting closes the cache on one goroutine while another
// writes to it. The writer is done long before the 2 ms the closer waits,
// so the send after Close does not happen by itself.
func TestCloseWhileWriting(t *testing.T) {
	c := New(1)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 3 {
			c.Put(fmt.Sprint(i), "v")
		}
	}()
	go func() {
		defer wg.Done()
		time.Sleep(2 * time.Millisecond)
		c.Close()
	}()
	wg.Wait()
}
