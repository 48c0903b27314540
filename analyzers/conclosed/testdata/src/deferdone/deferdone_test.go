package deferdone

import (
	"sync"
	"testing"
)

func TestWorkers(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(2)
	for i := 0; i < 2; i++ {
		go func() {
			t.Log("start")
			defer func() {
				t.Log("leaving")
				wg.Done()
				t.Log("stop") // want `t.Log\("stop"\) called from a goroutine that may outlive the test`
			}()
			work(t)
		}()
	}
	wg.Wait()
}

func work(t *testing.T) { t.Log("working") }
