package oscs

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/precog-dev/precog/shim/trace"
)

// switchedSites are dns's Server: Serve (lock 70) refuses a second start,
// makes the connections' map and marks the server started; Shutdown
// (lock 80) returns unless it is started, marks it stopped and reads the
// map, its read switched by the check (site 83: trace.Site.Switches), or
// only guarded by it (85: a comparison that a changed value need not
// flip), or switched by a check of its own earlier section (86).
var switchedSites = func() *trace.SiteTable {
	t := &trace.SiteTable{Sites: []trace.Site{{ID: 1, File: "/k/k.go", Function: "Test"}, {ID: 2, File: "/k/k.go", Function: "Test"}}}
	for _, s := range []trace.Site{
		{ID: 70, Kind: "lock", Expr: "srv.lock"}, {ID: 71, Kind: "read", Expr: "srv.started", Uses: trace.UseBranch},
		{ID: 72, Kind: "write", Expr: "srv.conns"}, {ID: 73, Kind: "write", Expr: "srv.started"},
		{ID: 79, Kind: "unlock", Expr: "srv.lock"},
		{ID: 80, Kind: "lock", Expr: "srv.lock"}, {ID: 81, Kind: "read", Expr: "srv.started", Uses: trace.UseBranch},
		{ID: 82, Kind: "write", Expr: "srv.started"},
		{ID: 83, Kind: "read", Expr: "srv.conns", Guards: "81", Switches: "81"},
		{ID: 85, Kind: "read", Expr: "srv.conns", Guards: "81"},
		{ID: 86, Kind: "read", Expr: "srv.conns", Guards: "81", Switches: "81"},
		{ID: 87, Kind: "lock", Expr: "srv.lock"},
		{ID: 89, Kind: "unlock", Expr: "srv.lock"},
	} {
		s.Line, s.Col, s.File, s.Function = int(s.ID), 2, "/k/k.go", "Serve"
		if s.ID >= 80 {
			s.Function = "Shutdown"
		}
		t.Sites = append(t.Sites, s)
	}
	return t
}()

// A Serve and then a Shutdown, unordered but for the lock: Shutdown read
// the map only because its check found the server started, which Serve's
// section changed (false to true); had Shutdown's section run first, it
// would have returned. The pair on srv.conns is dropped; the flag's own
// pair is commutative (both sections read it, then write it). The
// controls stay reported: the read only guarded (a count compared with
// a bound: another value need not flip the branch); the server started
// before Serve's section (it set what was there already); the check in a
// section of its own, before Shutdown relocks to read the map (Serve's
// section can run between the two).
func TestSwitched(t *testing.T) {
	const (
		serve = `
10 g=2 Lock site=70 addr=0x900
10.1 g=2 Read site=71 addr=0x100
10.2 g=2 Write site=72 addr=0x200 value=1
10.3 g=2 Write site=73 addr=0x100 value=1
11 g=2 Unlock site=79 addr=0x900`
		shutdown = `
20 g=3 Lock site=80 addr=0x900
20.1 g=3 Read site=81 addr=0x100
20.2 g=3 Write site=82 addr=0x100 value=0`
		read     = "\n20.3 g=3 Read site=%s addr=0x200\n21 g=3 Unlock site=89 addr=0x900"
		relocked = "\n21 g=3 Unlock site=89 addr=0x900\n22 g=3 Lock site=87 addr=0x900\n22.1 g=3 Read site=86 addr=0x200\n23 g=3 Unlock site=89 addr=0x900"
		started  = "\n3.5 g=1 Write site=2 addr=0x100 value=1"
	)
	for _, c := range []struct {
		name, text string
		want, off  []string
	}{
		{"switched", wholeStart + serve + shutdown + fmt.Sprintf(read, "83"), nil, []string{"70 72 80 83"}},
		{"guarded", wholeStart + serve + shutdown + fmt.Sprintf(read, "85"), []string{"70 72 80 85"}, []string{"70 72 80 85"}},
		{"unchanged", strings.TrimSuffix(wholeStart, "\n") + started + serve + shutdown + fmt.Sprintf(read, "83"), []string{"70 72 80 83"}, []string{"70 72 80 83"}},
		{"relocked", wholeStart + serve + shutdown + relocked, []string{"70 72 86 87"}, []string{"70 72 86 87"}},
	} {
		for _, off := range []bool{false, true} {
			want := c.want
			if off {
				want = c.off
			}
			var got []string
			for _, f := range Check(graph(t, c.text), switchedSites, Options{NoCondFlags: true, NoSpinFlags: true, NoWholeOp: true, NoSwitched: off}) {
				got = append(got, lines(f))
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s NoSwitched=%v: findings %q, want %q", c.name, off, got, want)
			}
		}
	}
}
