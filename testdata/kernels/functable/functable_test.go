package functable

import (
	"sync"
	"testing"
)

func TestApply(t *testing.T) {
	if got := Apply(2); got != 0 {
		t.Logf("total %d (a lost update)", got)
	}
}

func TestSafeApply(t *testing.T) {
	if got := SafeApply(2); got != 0 {
		t.Errorf("total %d, want 0", got)
	}
}

var (
	hits   int // counted by the cases of TestCases without a lock
	hitsMu sync.Mutex
	locked int // counted by the cases of TestLockedCases under hitsMu
)

// cases is a test table whose setup functions count in hits.
var cases = []struct {
	name  string
	setup func()
}{
	{"first", func() { hits++ }},  // written by one case's goroutine
	{"second", func() { hits++ }}, // written by another case's goroutine
}

// TestCases runs each case's setup on a goroutine of its own.
func TestCases(t *testing.T) {
	var wg sync.WaitGroup
	for _, tc := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tc.setup()
		}()
	}
	wg.Wait()
}

// lockedCases is cases with the count under hitsMu (negative control).
var lockedCases = []struct {
	name  string
	setup func()
}{
	{"first", func() { hitsMu.Lock(); locked++; hitsMu.Unlock() }},
	{"second", func() { hitsMu.Lock(); locked++; hitsMu.Unlock() }},
}

func TestLockedCases(t *testing.T) {
	var wg sync.WaitGroup
	for _, tc := range lockedCases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tc.setup()
		}()
	}
	wg.Wait()
	if locked != 2 {
		t.Errorf("locked %d, want 2", locked)
	}
}
