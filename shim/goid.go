package shim

import (
	"runtime"
	"sync"
	"unsafe"
)

// goidOffset is the offset of the goid field in the runtime's g struct, found
// by discoverGoidOffset at init; 0 means unknown, and goid falls back to
// parsing runtime.Stack.
var goidOffset uintptr

// goid returns the runtime id of the running goroutine.
func goid() uint64 {
	if goidOffset != 0 {
		return *(*uint64)(unsafe.Add(getg(), goidOffset))
	}
	return slowGoid()
}

// slowGoid parses the id out of the first line of runtime.Stack,
// "goroutine 42 [running]:". It costs about a microsecond.
func slowGoid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) || string(b[:len(prefix)]) != prefix {
		panic("precog shim: cannot read the goroutine id from runtime.Stack")
	}
	var id uint64
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

// goidScanLimit bounds the part of the g struct searched for the goid. The
// field sits at 152 bytes on amd64 since Go 1.21; the struct is far larger
// than the limit, so the scan stays inside it.
const goidScanLimit = 320

// discoverGoidOffset finds the goid field by reading the g of several
// goroutines and keeping the offsets where every one holds its own id (as
// runtime.Stack prints it). It returns 0 if getg is not available or no
// single offset fits.
func discoverGoidOffset() uintptr {
	if !haveGetg {
		return 0
	}
	const samples = 4
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		fits [goidScanLimit / 8]int
	)
	probe := func() {
		id, g := slowGoid(), getg()
		mu.Lock()
		defer mu.Unlock()
		for i := range fits {
			if *(*uint64)(unsafe.Add(g, i*8)) == id {
				fits[i]++
			}
		}
	}
	probe()
	for i := 0; i < samples; i++ {
		// One at a time, so that each goroutine gets a different id.
		wg.Add(1)
		go func() {
			defer wg.Done()
			probe()
		}()
		wg.Wait()
	}
	off := uintptr(0)
	for i, n := range fits {
		if n == samples+1 {
			if off != 0 {
				return 0 // ambiguous
			}
			off = uintptr(i * 8)
		}
	}
	return off
}
