//go:build linux || darwin

package shim

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of f at off, shared, so that stores reach the
// file without write(2) and survive the process.
func mapFile(f *os.File, off int64, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), off, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}
