package raceatomic

import (
	"sync"
	"testing"
	"time"
)

func TestClose(t *testing.T) {
	c := &Conn{}
	go c.Close()
	time.Sleep(5 * time.Millisecond)
	if !c.Closed() {
		t.Log("not closed yet")
	}
}

// drain runs takers goroutines that each take the batch rounds times,
// handing each batch they win to a drainer goroutine, which sums it and
// frees it.
func drain(t *testing.T, take func(...int) *Batch, free func()) {
	batches := make(chan *Batch)
	done := make(chan int)
	go func() {
		sum := 0
		for pb := range batches {
			for _, x := range pb.Items {
				sum += x
			}
			free()
		}
		done <- sum
	}()
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3 {
				if pb := take(g, i); pb != nil {
					batches <- pb
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	wg.Wait()
	close(batches)
	if sum := <-done; sum < 0 {
		t.Errorf("sum %d", sum)
	}
}

func TestBuffer(t *testing.T) {
	b := NewBuffer()
	drain(t, b.Take, b.Free)
}
