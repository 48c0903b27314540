package shim

import (
	"bytes"
	"runtime"
	"strconv"
)

// Where a goroutine is, as the runtime tells it: control asks when a
// successor has waited out the grace of a read step (control.go, Points)
// whose goroutine made no event since, to learn whether that goroutine can
// still be on its way from R to the load of the value it read.
//
// The runtime exports a goroutine's status only in the headers of
// runtime.Stack(buf, true) ("goroutine 7 [chan receive]:"), which stops the
// world and prints every goroutine: it runs only on that cold path, under
// a backoff (force's lazyCheckMax).

// A readerState is what control makes of a goroutine's status.
type readerState int

const (
	// readerMayRun: running, runnable, preempted, in a stack copy, held
	// by the garbage collector or of a status not known here. It may be
	// between R and the load: the load takes a few instructions, but a
	// goroutine (or its thread, on a loaded machine) can be descheduled
	// there for any time.
	readerMayRun readerState = iota
	// readerBlocked: waiting for another goroutine or the outside world
	// (a channel, select, sleep, a sync primitive, a system call, I/O)
	// where the shim records nothing. It made its load before it got
	// there, except when the blocking call is in the same expression as
	// the read (control.go, Points), and it makes no event until
	// something else happens.
	readerBlocked
	// readerGone: no goroutine has the id (runtime ids are not reused):
	// it ended without control seeing its end.
	readerGone
)

// maxStackDump bounds the buffer of runtime.Stack: past it, a goroutine
// not found in the dump is of unknown state (readerMayRun), not gone.
const maxStackDump = 64 << 20

// goroutineState returns the state of the goroutine with runtime id id and
// the status the runtime printed for it ("" if none). buf is a buffer to
// reuse, grown as needed.
func goroutineState(id uint64, buf *[]byte) (readerState, string) {
	if len(*buf) == 0 {
		*buf = make([]byte, 64<<10)
	}
	var n int
	for {
		n = runtime.Stack(*buf, true)
		if n < len(*buf) || len(*buf) >= maxStackDump {
			break
		}
		*buf = make([]byte, 2*len(*buf))
	}
	status, found := statusOf((*buf)[:n], id)
	switch {
	case found:
		return classifyStatus(status), status
	case n < len(*buf):
		return readerGone, ""
	}
	return readerMayRun, ""
}

// statusOf finds the header of goroutine id in dump, the text of
// runtime.Stack(buf, true), and returns its status: what stands between
// the brackets, up to a comma ("select, 2 minutes", "running, locked to
// thread").
func statusOf(dump []byte, id uint64) (string, bool) {
	want := []byte("goroutine " + strconv.FormatUint(id, 10) + " ")
	for i := 0; i < len(dump); {
		line := dump[i:]
		if j := bytes.IndexByte(line, '\n'); j >= 0 {
			line = line[:j+1]
		}
		i += len(line)
		if !bytes.HasPrefix(line, want) {
			continue
		}
		// With GOTRACEBACK=system or more, gp=... m=... come first.
		open := bytes.IndexByte(line, '[')
		if open < 0 {
			return "", true
		}
		s := line[open+1:]
		if k := bytes.IndexAny(s, ",]"); k >= 0 {
			s = s[:k]
		}
		return string(s), true
	}
	return "", false
}

// blockedStatuses are the status prefixes of a goroutine blocked where the
// shim records nothing (the runtime's waitReasonStrings, gStatusStrings):
// "sync." covers the sync primitives, "synctest." and the "(durable)"
// suffixes a bubble's waits, "chan " the nil-channel waits.
var blockedStatuses = []string{
	"chan receive", "chan send", "select", "sleep", "sync.", "synctest.",
	"semacquire", "IO wait", "syscall", "coroutine",
}

// classifyStatus returns the state of a goroutine of the given status.
func classifyStatus(status string) readerState {
	for _, p := range blockedStatuses {
		if len(status) >= len(p) && status[:len(p)] == p {
			return readerBlocked
		}
	}
	return readerMayRun
}

// anyPanicking reports whether a goroutine is panicking: running its
// deferred calls, or past them on its way to print the panic and end the
// process (a panic that a deferred call recovered is over once that call
// returned: one that goes on running, a supervisor's loop in the deferred
// call, stays panicking). The runtime's
// goroutine profile holds every goroutine's return addresses, the
// runtime's own frames included, and runtime.gopanic is among those of a
// panicking goroutine. runtime.Stack's text will not do: it leaves the
// runtime's frames out, gopanic's too when it is the innermost one, as it
// is for a goroutine descheduled in the runtime's panic code between two
// deferred calls or after the last (cherokee's worker, shown "runnable" at
// its slice after its deferred wg.Done had let the test end), whatever
// GOTRACEBACK says. A profile keeps 32 frames of each stack, from the
// innermost: a deferred call deeper than that hides its panic. recs is a
// buffer to reuse, grown as needed.
func anyPanicking(recs *[]runtime.StackRecord) bool {
	n, ok := runtime.GoroutineProfile(*recs)
	for !ok {
		*recs = make([]runtime.StackRecord, n+n/4+16)
		n, ok = runtime.GoroutineProfile(*recs)
	}
	for i := range (*recs)[:n] {
		frames := runtime.CallersFrames((*recs)[i].Stack())
		for {
			f, more := frames.Next()
			if f.Function == "runtime.gopanic" {
				return true
			}
			if !more {
				break
			}
		}
	}
	return false
}
