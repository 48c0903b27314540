package shim

import (
	"sync"
	"testing"
)

func TestGoidOffset(t *testing.T) {
	if !haveGetg {
		t.Skip("no getg on this platform")
	}
	if goidOffset == 0 {
		t.Fatal("goid offset not found")
	}
	if off := discoverGoidOffset(); off != goidOffset {
		t.Fatalf("discovery gave %d, then %d", goidOffset, off)
	}
}

func TestGoidMatchesStack(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if fast, slow := goid(), slowGoid(); fast != slow {
				t.Errorf("goid %d, runtime.Stack says %d", fast, slow)
			}
		}()
	}
	wg.Wait()
}

func BenchmarkGoid(b *testing.B) {
	for b.Loop() {
		goid()
	}
}
