package tlogiface

import (
	"testing"
	"time"
)

// TestPool closes the pool and sleeps 10ms, which usually lets the worker
// log its job before the test returns.
func TestPool(t *testing.T) {
	p := NewPool(t)
	p.Submit("a")
	p.Close()
	time.Sleep(10 * time.Millisecond)
}

// TestShutdown waits for the worker.
func TestShutdown(t *testing.T) {
	p := NewPool(t)
	p.Submit("a")
	p.Shutdown()
}
