//go:build !linux

package shim

import "runtime"

// pause yields: without a plain sleeping system call here, pollUntil keeps
// polling.
func pause(d int64) { runtime.Gosched() }
