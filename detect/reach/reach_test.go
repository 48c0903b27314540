package reach

import (
	"fmt"
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

const header = `precog trace v1 test="T" package="p" start=2025-01-02T15:04:05Z pid=1` + "\n"

// sites is the site table of the tests: each site's line is its ID, in
// /src/k.go, column 5.
var sites = func() *trace.SiteTable {
	t := &trace.SiteTable{}
	for _, s := range []struct {
		id   uint32
		kind string
	}{{1, "go"}, {2, "go"}, {10, "write"}, {11, "read"}, {12, "read"}, {13, "write"}, {30, "make-chan"}, {31, "send"}, {32, "recv"}, {33, "close"}} {
		t.Sites = append(t.Sites, trace.Site{ID: s.id, File: "/src/k.go", Line: int(s.id), Col: 5, Kind: s.kind, Function: "f", Expr: "x.p"})
	}
	return t
}()

func graph(t *testing.T, text string) *hb.Graph {
	t.Helper()
	tr, err := trace.ParseText(strings.NewReader(header + text))
	if err != nil {
		t.Fatal(err)
	}
	trace.Sort(tr.Events)
	return hb.Analyze(tr.Events, hb.Options{Sites: sites})
}

// static returns a static finding of kind at the given lines of k.go
// and roles, reported at the first.
func static(kind string, at ...any) finding.Finding {
	f := finding.Finding{Kind: kind, Status: finding.Static}
	for i := 0; i < len(at); i += 2 {
		s := finding.Site{File: "/src/k.go", Line: at[i].(int), Col: 5, Role: at[i+1].(string)}
		if i == 0 {
			f.Sites = append(f.Sites, finding.Site{File: s.File, Line: s.Line, Col: 9})
		}
		f.Sites = append(f.Sites, s)
	}
	f.SetID()
	return f
}

// events summarizes a witness as "role@site/g#n".
func events(w finding.Witness) string {
	var out []string
	for _, e := range w.Events {
		out = append(out, fmt.Sprintf("%s@%d/g%d#%d", e.Role, e.Site, e.G, e.N))
	}
	return strings.Join(out, " ")
}

// MySQL-1's shape: the check and the dereference on one goroutine, the
// nil store on another. The witness names the dereference, the nil store
// (not the earlier non-nil one) and the check, as conmem's would.
func TestNull(t *testing.T) {
	g := graph(t, `
1 g=1 Begin parent=none
1.1 g=1 Write site=13 addr=0x100 value=1
2 g=1 Fork site=1 child=2
3 g=1 Fork site=2 child=3
4 g=2 Begin parent=1
4.1 g=2 Read site=11 addr=0x100
4.2 g=2 Read site=12 addr=0x100
5 g=3 Begin parent=1
5.1 g=3 Write site=13 addr=0x100 value=0
`)
	r := Find(g, sites, []finding.Finding{static(finding.ConNull, 12, finding.RoleDeref, 13, finding.RoleNilStore)})[0]
	if !r.Found || r.Ordered {
		t.Fatalf("found %v, ordered %v; want an unordered meeting", r.Found, r.Ordered)
	}
	if got, want := events(r.Witness), "deref@12/g2#0 nil-store@13/g3#0 check@11/g2#0"; got != want {
		t.Errorf("witness %s, want %s", got, want)
	}
}

// The sites ran, but on two objects, or on one goroutine: no meeting; a
// site that never ran is reported as such.
func TestNoMeeting(t *testing.T) {
	cands := []finding.Finding{
		static(finding.ConNull, 12, finding.RoleDeref, 13, finding.RoleNilStore),
		static(finding.ConClosed, 33, finding.RoleClose, 31, finding.RoleSend),
	}
	g := graph(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
3.1 g=2 Read site=12 addr=0x100
3.2 g=2 Write site=13 addr=0x100 value=0
4 g=1 ChanMake site=30 addr=0x900 cap=1
4.1 g=1 Write site=13 addr=0x200 value=0
5 g=1 ChanSend site=31 addr=0x900
`)
	rs := Find(g, sites, cands)
	if r := rs[0]; r.Found || !r.Ran[0] || !r.Ran[1] {
		t.Errorf("con-null: found %v, ran %v; want both sites run and no meeting", r.Found, r.Ran)
	}
	if r := rs[1]; r.Found || r.Ran[0] || !r.Ran[1] {
		t.Errorf("con-closed: found %v, ran %v; want the send run, the close not", r.Found, r.Ran)
	}
}

// A send ordered before the close by a receive is a meeting only when no
// unordered one exists, and says so; the site is matched by line when no
// site has the static column.
func TestOrdered(t *testing.T) {
	f := static(finding.ConClosed, 33, finding.RoleClose, 31, finding.RoleSend)
	for i := range f.Sites {
		f.Sites[i].Col = 2
	}
	g := graph(t, `
1 g=1 Begin parent=none
2 g=1 ChanMake site=30 addr=0x900 cap=0
3 g=1 Fork site=1 child=2
4 g=2 Begin parent=1
5 g=2 ChanSend site=31 addr=0x900
6 g=1 ChanRecv site=32 addr=0x900 ok=true
7 g=1 ChanClose site=33 addr=0x900
`)
	r := Find(g, sites, []finding.Finding{f})[0]
	if !r.Found || !r.Ordered {
		t.Fatalf("found %v, ordered %v; want an ordered meeting", r.Found, r.Ordered)
	}
	if got, want := events(r.Witness), "close@33/g1#0 send@31/g2#0"; got != want {
		t.Errorf("witness %s, want %s", got, want)
	}
}

// Cherokee's shape: the index is read twice in one loop with no sync
// event between (the same seq), the bound's check before each; the
// witness names the last read and its check too (index-last,
// check-last), as conmem's does.
func TestIndexInLoop(t *testing.T) {
	g := graph(t, `
1 g=1 Begin parent=none
2 g=1 Fork site=1 child=2
3 g=2 Begin parent=1
3.1 g=2 Read site=11 addr=0x100
3.2 g=2 Read site=12 addr=0x100
3.3 g=2 Read site=11 addr=0x100
3.4 g=2 Read site=12 addr=0x100
4 g=1 ChanMake site=30 addr=0x900 cap=1
4.1 g=1 Write site=13 addr=0x100 value=0
`)
	r := Find(g, sites, []finding.Finding{static(finding.ConIndex, 12, finding.RoleIndex, 13, finding.RoleWrite)})[0]
	if got, want := events(r.Witness), "index@12/g2#0 write@13/g1#0 check@11/g2#0 index-last@12/g2#1 check-last@11/g2#1"; got != want {
		t.Errorf("witness %s, want %s", got, want)
	}
}
