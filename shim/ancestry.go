package shim

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
)

// Ancestry. A goroutine that code precog does not instrument started (a
// server's connection goroutine that net/http or gRPC starts, whose
// handler is the module's code) has no EvFork: the shim adopts it at its
// first event, with no parent, and nothing orders it after what came
// before. Yet it descends from goroutines the shim records: the runtime
// names each goroutine's creator ("created by F in goroutine N" on its
// stack), and every goroutine begins after its creator began. So the
// shim follows the creators up to the nearest goroutine it records, the
// ancestor, and records EvBelow naming it; hb orders the child after what
// came before the ancestor's own start (its go statement's clock), never
// after the ancestor's events, which may follow the fork made in code the
// shim does not see. A test that runs `go srv.Serve(l)` before its
// requests orders the handlers after everything it did before that go
// statement; one whose server another library started (httptest's
// NewServer) gains nothing, its ancestor being the test's goroutine.
//
// A creator that the shim does not record (the server's accept loop) is
// looked up in a dump of every goroutine's stack, at most maxDumps times a
// process and not with more than maxDumpGoroutines goroutines; its line
// is kept, since a runtime id is never used twice.

// Bounds of the ancestry walk.
const (
	maxAncestry       = 64     // creators followed up from one goroutine
	maxDumps          = 32     // dumps of every goroutine's stack per process
	maxDumpGoroutines = 10_000 // goroutines beyond which no dump is taken
	maxDumpBytes      = 64 << 20
)

var ancestry struct {
	mu      sync.Mutex
	creator map[uint64]uint64 // runtime id -> its creator's, from dumps
	dumps   int
}

// recordedAncestor returns the logical id of the nearest goroutine the
// shim records among goroutine gid (a creator) and its ancestors, if the
// walk finds one.
func recordedAncestor(gid uint64) (uint64, bool) {
	dumped := false
	for range maxAncestry {
		states.mu.Lock()
		p := liveState(gid)
		var id uint64
		if p != nil {
			id = p.id
		}
		states.mu.Unlock()
		if p != nil {
			return id, true
		}
		c, ok := creatorOf(gid)
		if !ok && !dumped {
			dumped = true
			if dumpCreators() {
				c, ok = creatorOf(gid)
			}
		}
		if !ok {
			return 0, false
		}
		gid = c
	}
	return 0, false
}

// creatorOf returns the creator of goroutine gid that a dump found.
func creatorOf(gid uint64) (uint64, bool) {
	ancestry.mu.Lock()
	defer ancestry.mu.Unlock()
	c, ok := ancestry.creator[gid]
	return c, ok
}

// dumpCreators reads every goroutine's creator from a dump of all stacks,
// unless the bounds forbid it; it reports whether it did.
func dumpCreators() bool {
	ancestry.mu.Lock()
	defer ancestry.mu.Unlock()
	if ancestry.dumps >= maxDumps || runtime.NumGoroutine() > maxDumpGoroutines {
		return false
	}
	ancestry.dumps++
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		if len(buf) >= maxDumpBytes {
			return false
		}
		buf = make([]byte, 4*len(buf))
	}
	if ancestry.creator == nil {
		ancestry.creator = make(map[uint64]uint64)
	}
	for _, block := range bytes.Split(buf, []byte("\n\n")) {
		gid, ok := goroutineHeader(block)
		if !ok {
			continue
		}
		if c, _, ok := stackCreator(block); ok {
			ancestry.creator[gid] = c
		}
	}
	return true
}

// goroutineHeader parses the "goroutine N [state]:" line that starts a
// goroutine's stack in a dump.
func goroutineHeader(b []byte) (uint64, bool) {
	const head = "goroutine "
	if !bytes.HasPrefix(b, []byte(head)) {
		return 0, false
	}
	b = b[len(head):]
	i := bytes.IndexByte(b, ' ')
	if i < 0 {
		return 0, false
	}
	gid, err := strconv.ParseUint(string(b[:i]), 10, 64)
	return gid, err == nil
}
