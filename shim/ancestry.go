package shim

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"

	"github.com/precog-dev/precog/shim/trace"
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

// recordCreators records EvCreator events for g, just adopted, from stack
// (g's own, with its creation sections if GODEBUG has tracebackancestors
// set): one per package up the chain of its creation (creatorChain), so
// that precog test can name the dependency whose go statement started it,
// or the one that called into the standard library that did. It runs
// once per adopted goroutine, on the stack createdBy read already.
func (g *gstate) recordCreators(stack []byte) {
	for _, fn := range creatorChain(stack) {
		if n := trace.MaxEventLen + len(fn); cap(g.buf)-len(g.buf) < eventRoom+n {
			g.refill(eventRoom + n)
		}
		g.prepare()
		g.buf = g.enc.AppendCreator(g.buf, seqs.n.Add(1), fn)
		g.commit()
		g.synced()
	}
}

// creatorChain returns the functions up the chain of a goroutine's
// creation, from its stack: the function of its "created by" line, then
// the frames of its creation sections, innermost first (each section's
// first frame is the function with the go statement that created the
// goroutine of the section before). Of consecutive functions of one
// package it keeps the first, the package's entry into the chain; it
// keeps at most trace.MaxCreators, each cut to trace.MaxCreatorLen bytes.
func creatorChain(stack []byte) []string {
	own := stack
	if i := bytes.Index(own, []byte("\n[originating from goroutine ")); i >= 0 {
		own = own[:i]
	}
	i := bytes.LastIndex(own, []byte("\ncreated by "))
	if i < 0 {
		return nil
	}
	line := own[i+len("\ncreated by "):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	if j := bytes.LastIndex(line, []byte(" in goroutine ")); j >= 0 {
		line = line[:j]
	}
	var chain []string
	last := ""
	add := func(fn string) bool {
		if p := trace.FuncPackage(fn); p != last || len(chain) == 0 {
			last = p
			chain = append(chain, fn[:min(len(fn), trace.MaxCreatorLen)])
		}
		return len(chain) < trace.MaxCreators
	}
	if !add(string(line)) {
		return chain
	}
	secs := creationSections(stack)
	if len(secs) > maxAncestorSections {
		secs = secs[:maxAncestorSections]
	}
	for _, sec := range secs {
		for _, fr := range sec.frames {
			if !add(fr.fn) {
				return chain
			}
		}
	}
	return chain
}
