package shim

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
)

// Marks. A goroutine that code precog does not instrument created during
// a call into such code (net/http's connection goroutines, started by the
// Serve a test's goroutine called; the goroutine testify's Eventually
// starts for its condition) is ordered by EvBelow only after its recorded
// ancestor's start. Yet it was created while that call ran, so after all
// its creator did before the call. The rewriter marks each call into a
// package that is not instrumented and may start goroutines
// (shim.MarkV(site, x) around its last argument that is not a constant,
// after the arguments before it are evaluated, or shim.MarkF(site, f)
// around its function value); the goroutine's first mark at each site is
// recorded (EvMark), with the mark's caller's pc. With GODEBUG=tracebackancestors
// set (precog test sets it for a test binary with marks: plan.Godebug), a goroutine's stack holds,
// under "[originating from goroutine N]:", its creator N's stack when N
// created it, then N's creator's when that one created N, and so on. When
// the shim adopts a goroutine, it takes the first of those sections whose
// goroutine it records (live) and has a mark that matches: the innermost
// frame of the section in a function where that goroutine marked must be
// on the line of one of those marks. The creation (of the goroutine, or
// of the ancestor it descends from) then happened during a call made from
// that line, which came after the goroutine's first mark at that line
// (every execution of the line passes its mark first, in a loop too: the
// rewriter marks a call only when no other call on its line can run
// before the mark), and the shim records EvAfter naming it and the site.
// A frame whose line has no mark gives nothing: the call in progress may
// have begun before any mark. The section prints a frame's offset from
// its compiled function's entry, and a line that is the return address's
// (the next instruction's, often the next line): the shim rebuilds the
// pc from the entry of the function the mark's pc is in and resolves it
// as a traceback does.
//
// The cost is the setting's (the runtime copies the creator's pcs at
// every go statement) and, per marked call, a map lookup of the running
// goroutine's sites after its first call from there.

// maxMarkSites bounds the sites whose marks a goroutine keeps for its
// descendants' matching; later sites are recorded but not matched.
const maxMarkSites = 256

// markAt is a goroutine's first mark at a site.
type markAt struct {
	site uint32
	pc   uintptr // the return pc of the call of MarkV or MarkF in the marked function
	line int     // the marked call's line, if not the line of pc
}

// marks are the goroutine's first marks, in the order it made them, for
// its descendants' matching (under mu); seen is the set of their sites,
// which only the goroutine touches.
type marks struct {
	mu   sync.Mutex
	list []markAt
	seen map[uint32]struct{}
}

// first reports whether site is not yet among the goroutine's marks (a
// call's mark or a literal's handing: hand.go), and adds it. Only the
// goroutine calls it.
func (m *marks) first(site uint32) bool {
	if _, ok := m.seen[site]; ok {
		return false
	}
	if m.seen == nil {
		m.seen = make(map[uint32]struct{})
	}
	m.seen[site] = struct{}{}
	return true
}

// MarkV returns x, a call's last argument that is not a constant, after
// marking the call (see "Marks"): the arguments before it are evaluated.
// line is the call's own line, where a traceback shows a frame that is in
// the call; x may be on a later one.
func MarkV[T any](site uint32, line int, x T) T {
	if enabled {
		mark(site, line)
	}
	return x
}

// MarkF returns f, the function a call is about to call, after marking
// the call (see "Marks"): F is the function's type. For a call whose
// arguments MarkV cannot take.
func MarkF[F any](site uint32, f F) F {
	if enabled {
		mark(site, 0)
	}
	return f
}

// mark records the running goroutine's first mark at site, for a call on
// line (0: the line of the mark's own call).
//
//go:noinline
func mark(site uint32, line int) {
	g := cur()
	m := &g.marks
	if !m.first(site) {
		return
	}
	var pc [1]uintptr
	// Skip runtime.Callers, mark and MarkV or MarkF: their caller, inlined
	// or not.
	if runtime.Callers(3, pc[:]) == 1 && len(m.list) < maxMarkSites {
		m.mu.Lock()
		m.list = append(m.list, markAt{site, pc[0], line})
		m.mu.Unlock()
	}
	g.prepare()
	g.buf = g.enc.AppendMark(g.buf, seqs.n.Add(1), site)
	g.commit()
	g.synced()
}

// resetMarks forgets a state's marks when it is bound to a new goroutine.
// states.mu is held; the previous goroutine has ended.
func (g *gstate) resetMarks() {
	if len(g.marks.seen) > 0 {
		clear(g.marks.seen)
	}
	// Only the goroutine bound to g appends to the list, and the last
	// one ended: the lock is needed only against creationMark's readers,
	// when there is something to reset (a goroutine without marks, most
	// of pond's 115,851, took it for nothing).
	if len(g.marks.list) > 0 {
		g.marks.mu.Lock()
		g.marks.list = g.marks.list[:0]
		g.marks.mu.Unlock()
	}
}

// recordAfter records that the goroutine was created after its creator's
// first mark at site.
func (g *gstate) recordAfter(site uint32, parent uint64) {
	g.prepare()
	g.buf = g.enc.AppendAfter(g.buf, seqs.n.Add(1), site, parent)
	g.commit()
	g.synced()
}

// markLine is where a mark's pc is: its function's logical name, its file
// and line, and the entry of the function it is compiled in.
type markLine struct {
	fn, file string
	line     int
	entry    uintptr
}

// markLines caches lineOf's answers by pc, under states.mu: every
// goroutine a server's accept loop starts matches its creator's marks.
var markLines map[uintptr]markLine

// cachedLineOf is lineOf, cached. states.mu is held.
func cachedLineOf(pc uintptr) (markLine, bool) {
	if l, ok := markLines[pc]; ok {
		return l, l.fn != ""
	}
	l, ok := lineOf(pc)
	if markLines == nil {
		markLines = make(map[uintptr]markLine)
	}
	if len(markLines) < 1<<16 {
		markLines[pc] = l
	}
	return l, ok
}

// lineOf resolves a return pc as a traceback does (the call's line).
func lineOf(pc uintptr) (markLine, bool) {
	f := runtime.FuncForPC(pc - 1)
	if f == nil {
		return markLine{}, false
	}
	fr, _ := runtime.CallersFrames([]uintptr{pc}).Next()
	if fr.Function == "" {
		return markLine{}, false
	}
	return markLine{fn: fr.Function, file: fr.File, line: fr.Line, entry: f.Entry()}, true
}

// creationMark returns the site of creator's first mark at the line of the
// innermost frame of a creation section's frames in a function where
// creator marked, if the line has a mark: a frame of that function, or
// one that names the function inlined in it at the frame's pc
// (innermostAt). creator is live under states.mu.
func creationMark(frames []ancestorFrame, creator *gstate) (uint32, bool) {
	creator.marks.mu.Lock()
	list := append([]markAt(nil), creator.marks.list...)
	creator.marks.mu.Unlock()
	if len(list) == 0 {
		return 0, false
	}
	lines := make([]markLine, len(list))
	okLine := make([]bool, len(list))
	for i, m := range list {
		lines[i], okLine[i] = cachedLineOf(m.pc)
		if m.line != 0 {
			lines[i].line = m.line
		}
	}
	for _, fr := range frames {
		found := false // creator marked in the frame's function
		for i := range list {
			if !okLine[i] {
				continue
			}
			// The frame's pc, from the entry of the function the mark is
			// compiled in: the section prints the offset, not the pc.
			pc := lines[i].entry + fr.off
			if lines[i].fn != fr.fn && (fr.off == 0 || cachedInnermostAt(pc, lines[i].entry) != fr.fn) {
				continue
			}
			at, ok := frameLine(pc, lines[i].fn)
			if !ok {
				continue // the frame's call is not the marked function's
			}
			found = true
			if at.file == lines[i].file && at.line == lines[i].line {
				return list[i].site, true // the first: list is in marking order
			}
		}
		if found {
			return 0, false // the innermost frame with marks: its line has none
		}
	}
	return 0, false
}

// pcFunc is the compiled function a pc is in (its entry) and the
// innermost logical function at the pc itself.
type pcFunc struct {
	entry uintptr
	fn    string
}

// innermost caches innermostAt's answers by pc, under states.mu: each
// frame of a creation section is tried against each of its creator's
// marks, and a server's goroutines show the same frames.
var innermost map[uintptr]pcFunc

// cachedInnermostAt is innermostAt, cached. states.mu is held.
func cachedInnermostAt(pc, entry uintptr) string {
	in, ok := innermost[pc]
	if !ok {
		if f := runtime.FuncForPC(pc); f != nil {
			in = pcFunc{f.Entry(), innermostAt(pc, f.Entry())}
		}
		if innermost == nil {
			innermost = make(map[uintptr]pcFunc)
		}
		if len(innermost) < 1<<16 {
			innermost[pc] = in
		}
	}
	if in.entry != entry {
		return ""
	}
	return in.fn
}

// innermostAt returns the innermost logical function at pc itself, if pc
// is in the compiled function whose entry is entry. A creation section
// prints, for each return pc, only that function
// (runtime.printAncestorTracebackFuncInfo), the one inlined at the
// instruction after the call when there is one: a marked function whose
// call is followed by an inlined one's (lambda's startFunctionRPC:
// rpc.Accept(lis), then return errors.New(...)) shows as the inlined
// function, at an offset from the marked function's entry.
func innermostAt(pc, entry uintptr) string {
	if f := runtime.FuncForPC(pc); f == nil || f.Entry() != entry {
		return ""
	}
	// CallersFrames looks a pc up one byte back, as a return pc's call.
	fr, _ := runtime.CallersFrames([]uintptr{pc + 1}).Next()
	return fr.Function
}

// frameLine resolves pc, a return pc in a compiled function, to the line
// of the logical frame named fn among those inlined at it.
func frameLine(pc uintptr, fn string) (markLine, bool) {
	if runtime.FuncForPC(pc-1) == nil {
		return markLine{}, false
	}
	frs := runtime.CallersFrames([]uintptr{pc})
	for {
		fr, more := frs.Next()
		if fr.Function == fn {
			return markLine{fn: fn, file: fr.File, line: fr.Line}, true
		}
		if !more {
			return markLine{}, false
		}
	}
}

// ancestorFrame is a frame of a creation section: its function's logical
// name and the offset of its return pc from its compiled function's entry.
type ancestorFrame struct {
	fn  string
	off uintptr
}

// creationSection is an "[originating from goroutine N]:" section of a
// stack: N's stack when it created the goroutine the section is about
// (the first section's, the goroutine's own creator; the next one's, that
// creator's creator), innermost frame first:
//
//	[originating from goroutine 19]:
//	main.serve(...)
//		/tmp/main.go:19 +0x59
type creationSection struct {
	gid    uint64
	frames []ancestorFrame
}

// creationSections parses the creation sections of stack, in order.
func creationSections(stack []byte) []creationSection {
	const head = "\n[originating from goroutine "
	var secs []creationSection
	for {
		i := bytes.Index(stack, []byte(head))
		if i < 0 {
			return secs
		}
		b := stack[i+len(head):]
		j := bytes.Index(b, []byte("]:\n"))
		if j < 0 {
			return secs
		}
		n, err := strconv.ParseUint(string(b[:j]), 10, 64)
		if err != nil {
			return secs
		}
		b = b[j+len("]:\n"):]
		sec := creationSection{gid: n}
		for len(b) > 0 {
			nl := bytes.IndexByte(b, '\n')
			if nl < 0 {
				break
			}
			fn, ok := bytes.CutSuffix(b[:nl], []byte("(...)"))
			if !ok || len(fn) == 0 || fn[0] == '[' || bytes.HasPrefix(fn, []byte("created by ")) {
				break
			}
			b = b[nl+1:]
			nl = bytes.IndexByte(b, '\n')
			if nl < 0 {
				nl = len(b)
			}
			loc := b[:nl]
			b = b[min(nl+1, len(b)):]
			k := bytes.LastIndex(loc, []byte(" +0x"))
			if k < 0 {
				// No offset: the pc is the function's entry, never a call's.
				sec.frames = append(sec.frames, ancestorFrame{fn: string(fn)})
				continue
			}
			off, err := strconv.ParseUint(string(loc[k+len(" +0x"):]), 16, 64)
			if err != nil {
				break
			}
			sec.frames = append(sec.frames, ancestorFrame{fn: string(fn), off: uintptr(off)})
		}
		secs = append(secs, sec)
		stack = b
	}
}

// noteCreation records EvAfter for g, just adopted, if stack (g's own)
// places its creation, or that of one of the ancestors its creation
// sections show, on the line of a mark of a recorded ancestor: the
// nearest such ancestor whose section's frames match one of its marks.
func (g *gstate) noteCreation(stack []byte) {
	if !bytes.Contains(stack, []byte("\n[originating from goroutine ")) {
		return
	}
	secs := creationSections(stack)
	if len(secs) > maxAncestorSections {
		secs = secs[:maxAncestorSections]
	}
	for _, sec := range secs {
		states.mu.Lock()
		p := liveState(sec.gid)
		var pid uint64
		var site uint32
		ok := false
		if p != nil {
			pid = p.id
			site, ok = creationMark(sec.frames, p)
		}
		states.mu.Unlock()
		if ok {
			g.recordAfter(site, pid)
			return
		}
	}
}

// maxAncestorSections bounds the creation sections noteCreation reads:
// plan.Godebug's tracebackancestors.
const maxAncestorSections = 5
