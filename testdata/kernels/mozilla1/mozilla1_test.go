package mozilla1

import (
	"testing"
	"time"
)

// TestCompileReset compiles a script on one goroutine while the page is torn
// down on another. Reset normally comes 20 ms later, after the compile.
func TestCompileReset(t *testing.T) {
	rt := &Runtime{}
	s := &Script{source: "var x = 1; print(x)"}
	done := make(chan int)
	go func() { done <- rt.Compile(s) }()
	go func() {
		time.Sleep(20 * time.Millisecond)
		rt.Reset()
		done <- 0
	}()
	n := <-done + <-done
	if n != len(s.source) {
		t.Errorf("compiled %d bytes, want %d", n, len(s.source))
	}
}
