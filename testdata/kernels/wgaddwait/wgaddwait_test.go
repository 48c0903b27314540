package wgaddwait

import (
	"sync"
	"testing"
)

func TestCrawl(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	done := make(chan struct{}, 2)
	Crawl([]string{"a", "b"}, func(l string) {
		mu.Lock()
		seen[l] = true
		mu.Unlock()
		done <- struct{}{}
	})
	<-done
	<-done
}

func TestSafeCrawl(t *testing.T) {
	var mu sync.Mutex
	n := 0
	SafeCrawl([]string{"a", "b"}, func(string) { mu.Lock(); n++; mu.Unlock() })
	if n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
}

func TestBatches(t *testing.T) {
	var mu sync.Mutex
	n := 0
	Batches([][]string{{"a", "b"}, {"c"}}, func(string) { mu.Lock(); n++; mu.Unlock() })
	if n != 3 {
		t.Errorf("%d fetches, want 3", n)
	}
}
