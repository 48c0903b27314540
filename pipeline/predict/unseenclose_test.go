package predict

import (
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/shim/trace"
)

// TestUnseenCloses: a tailer (g2) that, after the test's read of a field
// (g1, event 1), received from a channel found closed and then wrote the
// field gets the note; so does a select's receive case. The controls:
// the trace has the close (an instrumented one), the receive came before
// the other side's event, the receive found a value, the receive is on
// the earlier side's goroutine, a select's send case, and a context's
// cancel before the receive (hb orders that close).
func TestUnseenCloses(t *testing.T) {
	sites := &trace.SiteTable{Sites: []trace.Site{
		{ID: 1, File: "/m/tail.go", Line: 10, Kind: "read", Expr: "t.file"},
		{ID: 2, File: "/m/tail.go", Line: 20, Kind: "recv"},
		{ID: 3, File: "/m/tail.go", Line: 30, Kind: "write", Expr: "t.file"},
		{ID: 4, File: "/m/tail.go", Line: 40, Kind: "close"},
	}}
	read := trace.Event{Kind: trace.EvRead, Site: 1, Goroutine: 1, Addr: 0x100}
	recv := trace.Event{Kind: trace.EvChanRecv, Site: 2, Goroutine: 2, Addr: 0x900}
	write := trace.Event{Kind: trace.EvWrite, Site: 3, Goroutine: 2, Addr: 0x100}
	with := func(e trace.Event, f func(*trace.Event)) trace.Event { f(&e); return e }
	sel := with(recv, func(e *trace.Event) { e.Kind, e.Arg = trace.EvSelect, 1 })
	for _, c := range []struct {
		name string
		evs  []trace.Event
		want bool
	}{
		{"closed", []trace.Event{read, recv, write}, true},
		{"select", []trace.Event{read, sel, write}, true},
		{"recorded close", []trace.Event{read, {Kind: trace.EvChanClose, Site: 4, Goroutine: 1, Addr: 0x900}, recv, write}, false},
		{"before", []trace.Event{recv, read, write}, false},
		{"value", []trace.Event{read, with(recv, func(e *trace.Event) { e.Value = 1 }), write}, false},
		{"earlier side", []trace.Event{read, with(recv, func(e *trace.Event) { e.Goroutine = 1 }), write}, false},
		{"send case", []trace.Event{read, with(sel, func(e *trace.Event) { e.Value = 1 }), write}, false},
		{"cancel", []trace.Event{read, {Kind: trace.EvCancel, Site: 4, Goroutine: 1, Addr: 0x700}, recv, write}, false},
	} {
		var ri, wi int
		for i, e := range c.evs {
			switch e.Kind {
			case trace.EvRead:
				ri = i
			case trace.EvWrite:
				wi = i
			}
		}
		fs := []finding.Finding{{Kind: finding.Race, Witnesses: []finding.Witness{{Events: []finding.Event{
			{Role: "read", G: 1, Site: 1, Index: ri}, {Role: "write", G: 2, Site: 3, Index: wi},
		}}}}}
		noteUnseenCloses(c.evs, sites, fs)
		got := len(fs[0].Evidence.Notes) == 1 && strings.HasPrefix(fs[0].Evidence.Notes[0], finding.UnseenClose+": before tail.go:30 its goroutine received at tail.go:20 ")
		if got != c.want || !c.want && len(fs[0].Evidence.Notes) > 0 {
			t.Errorf("%s: notes %q, want a note: %v", c.name, fs[0].Evidence.Notes, c.want)
		}
	}
}
