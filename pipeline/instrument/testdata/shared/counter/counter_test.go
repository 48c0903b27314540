package counter_test

import (
	"sync"
	"testing"

	"precog.example/shared/counter"
)

func TestInc(t *testing.T) {
	c := counter.New("c")
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc()
		}()
	}
	wg.Wait()
	if c.N() > 2 {
		t.Fatal(c.N())
	}
}
