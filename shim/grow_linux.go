package shim

import (
	"os"
	"syscall"
	"unsafe"
)

// growFile extends f to off+size, reserving the blocks when the file system
// can, so that a full disk shows as an error here and not as a SIGBUS when
// a page of the mapping is first written.
//
// The system calls here and in populatePages and dropPages are raw: the
// goroutine keeps its P through them, as the runtime's own madvise calls
// do, instead of handing it to another goroutine when one takes longer
// than sysmon's tick (they take a millisecond or more for a segment of 2
// MiB) and then waiting to get a P back, up to a scheduler time slice
// while the other Ps run goroutines that do not block (bench/RESULTS.md,
// syncmap). Their work is the kernel zeroing and mapping pages for this
// process, CPU time the P would otherwise spend on the goroutine anyway.
// (fallocate is raw on 64-bit platforms only, where its offset and size
// each fit a register.)
func growFile(f *os.File, off int64, size int) error {
	var err error
	if unsafe.Sizeof(uintptr(0)) == 8 {
		if _, _, e := syscall.RawSyscall6(syscall.SYS_FALLOCATE, f.Fd(), 0, uintptr(off), uintptr(size), 0, 0); e != 0 {
			err = e
		}
	} else { // the offset and size take two registers each
		err = syscall.Fallocate(int(f.Fd()), 0, off, int64(size))
	}
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
		syscall.RawSyscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(&b[start])), uintptr(end-start), syscall.MADV_DONTNEED)
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
		syscall.RawSyscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), syscall.MADV_HUGEPAGE)
	}
	syscall.RawSyscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), madvPopulateWrite)
}
