package predict

import (
	"fmt"
	"path/filepath"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/shim/trace"
)

// noteUnseenCloses adds a note to each finding of the run evs in which
// the goroutine of the later side, after the earlier side's event and
// before its own, received from a channel that found it closed while the
// trace holds no close of that channel: code precog did not instrument
// closed it (a dependency's, such as gopkg.in/tomb.v1's Kill, which
// closes the dying channel a tailer's select waits on). Whoever closed
// it did so before that receive, maybe after the earlier side's event on
// its goroutine, and would then order the two: nxadm/tail's TestTell
// races between Tell and the tailer's closeFile, which runs only once
// Stop's close reached it. The note says so, and how to instrument a
// dependency (the standard library's closes, a context's Done among
// them, -instrument-deps refuses); it orders nothing (the close's goroutine and time are not
// in the trace). A receive after a context's cancel (EvCancel) gets none:
// detect/hb takes such a close for the cancel's and orders it so.
func noteUnseenCloses(evs []trace.Event, sites *trace.SiteTable, fs []finding.Finding) {
	var closed map[uint64]bool
	cancel := 0 // the index of the trace's first EvCancel
	for i := range fs {
		f := &fs[i]
		if len(f.Witnesses) == 0 {
			continue
		}
		w := f.Witnesses[0].Events
		last := -1
		for k, e := range w {
			if e.Index >= 0 && e.Index < len(evs) && (last < 0 || e.Index > w[last].Index) {
				last = k
			}
		}
		if last < 0 {
			continue
		}
		g := w[last].G
		first := -1
		for _, e := range w {
			if e.G != g && e.Index >= 0 && (first < 0 || e.Index < first) {
				first = e.Index
			}
		}
		if first < 0 {
			continue
		}
		if closed == nil {
			closed = make(map[uint64]bool)
			cancel = len(evs)
			for i, ev := range evs {
				switch ev.Kind {
				case trace.EvChanClose:
					closed[ev.Addr] = true
				case trace.EvCancel:
					cancel = min(cancel, i)
				}
			}
		}
		for j := first + 1; j < w[last].Index && j < cancel; j++ {
			ev := &evs[j]
			if ev.Goroutine != g || !closedRecv(ev) || closed[ev.Addr] {
				continue
			}
			at, side := finding.SiteOf(sites, ev.Site, "recv"), finding.SiteOf(sites, w[last].Site, "")
			f.Evidence.Notes = append(f.Evidence.Notes, fmt.Sprintf("%s: before %s:%d its goroutine received at %s:%d from a channel found closed, after the other side's event, and the trace has no close of it; code precog did not instrument closed it, and that close may order the two: a dependency's (-instrument-deps PATTERN records it) or the standard library's (a context cancelled where precog did not record it; no flag records those)",
				finding.UnseenClose, filepath.Base(side.File), side.Line, filepath.Base(at.File), at.Line))
			break
		}
	}
}

// closedRecv reports whether ev is a receive, or a select's receive
// case, that found its channel closed and empty.
func closedRecv(ev *trace.Event) bool {
	switch ev.Kind {
	case trace.EvChanRecv:
		return ev.Value == 0
	case trace.EvSelect:
		return ev.Arg >= 0 && ev.Addr != 0 && ev.Value == 0
	}
	return false
}
