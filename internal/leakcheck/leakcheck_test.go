package leakcheck

import (
	"os"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestGoroutines checks that a goroutine started by a test is found, with
// its stack, and is not mistaken for a background one.
func TestGoroutines(t *testing.T) {
	before := make(map[string]bool)
	for _, g := range goroutines() {
		before[g.id] = true
	}
	started, stop := make(chan struct{}), make(chan struct{})
	go func() {
		close(started)
		<-stop
	}()
	<-started
	defer close(stop) // or Main fails this test binary

	var found []goroutine
	for _, g := range goroutines() {
		if !before[g.id] {
			found = append(found, g)
		}
	}
	if len(found) != 1 || !strings.Contains(found[0].stack, "leakcheck.TestGoroutines") || background(found[0].stack) {
		t.Errorf("new goroutines = %+v, want the one this test started", found)
	}
	for _, g := range goroutines() {
		if strings.Contains(g.stack, "leakcheck.goroutines") {
			t.Errorf("goroutines lists its caller:\n%s", g.stack)
		}
	}
}
