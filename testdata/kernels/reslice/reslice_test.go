package reslice

import (
	"sync"
	"testing"
)

func TestBatcher(t *testing.T) {
	b := &Batcher{max: 2}
	b.Add("a")
	b.Add("b")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		b.Add("c") // truncates the full batch and appends
	}()
	n := 0
	b.Flush(func(string) { n++ })
	wg.Wait()
}

func TestSafeBatcher(t *testing.T) {
	b := &SafeBatcher{max: 2}
	b.Add("a")
	b.Add("b")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		b.Add("c")
	}()
	n := 0
	b.Flush(func(string) { n++ })
	wg.Wait()
}
