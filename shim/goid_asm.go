//go:build amd64 || arm64

package shim

import "unsafe"

// getg returns the running goroutine's runtime g, read from thread-local
// storage (amd64) or the g register (arm64).
func getg() unsafe.Pointer

const haveGetg = true
