package shim

import (
	"os"
	"syscall"
	"unsafe"
)

// growFile extends f to off+size, reserving the blocks when the file system
// can, so that a full disk shows as an error here and not as a SIGBUS when
// a page of the mapping is first written.
func growFile(f *os.File, off int64, size int) error {
	err := syscall.Fallocate(int(f.Fd()), 0, off, int64(size))
	if err == syscall.EOPNOTSUPP || err == syscall.ENOSYS {
		return f.Truncate(off + int64(size))
	}
	if err != nil {
		return &os.PathError{Op: "fallocate", Path: f.Name(), Err: err}
	}
	return nil
}

// dropPages tells the kernel that the whole pages of a segment the trace
// has left behind are not needed: their data stays in the file (the
// mapping is shared), and they stop counting toward the process's resident
// memory. A goroutine still writing into a chunk there faults its pages
// back in.
func dropPages(b []byte) {
	pg := os.Getpagesize()
	start := alignUp(int(uintptrOf(b)), pg) - int(uintptrOf(b))
	end := start + (len(b)-start)/pg*pg
	if start < end {
		syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(&b[start])), uintptr(end-start), syscall.MADV_DONTNEED)
	}
}

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14), which package
// syscall does not name.
const madvPopulateWrite = 23

// populatePages faults a new segment's pages in for writing, in one call:
// a fault per page as the goroutines first write there was 7% of
// ristretto/z's recorded samples (exc_page_fault on this paravirtualized
// machine). A kernel without MADV_POPULATE_WRITE refuses it, and the pages
// fault in one by one as before.
//
// A segment of whole huge pages (mapSegment places those at file offsets
// that are multiples of hugePage) is first advised MADV_HUGEPAGE, so that
// the kernel can back it with huge folios: on this machine the first
// write to each 4 KiB page of a populated segment still cost 4 to 5 µs of
// user CPU (the hypervisor's shadow page tables, charged to whatever
// instruction stored there: the encoders' and StartBatch's stores in the
// profiles), and about 0.2 µs with the advice (bench/RESULTS.md,
// reccost9). A kernel or file system that cannot do it ignores the advice.
func populatePages(b []byte) {
	if len(b) >= hugePage && len(b)%hugePage == 0 {
		syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), syscall.MADV_HUGEPAGE)
	}
	syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), madvPopulateWrite)
}
