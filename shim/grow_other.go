//go:build !linux

package shim

import "os"

// growFile extends f to off+size. The blocks are not reserved: on a full
// disk, the first write to a new page of the mapping raises SIGBUS.
func growFile(f *os.File, off int64, size int) error { return f.Truncate(off + int64(size)) }

// dropPages would release an old segment's pages; only Linux does it.
func dropPages(b []byte) {}

// populatePages would fault a new segment's pages in at once; only Linux does it.
func populatePages(b []byte) {}
