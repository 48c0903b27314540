package trace

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o666); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadSites(t *testing.T) {
	path := writeFile(t, "sites.json", `{"sites": [
		{"id": 7, "file": "bank/bank.go", "line": 31, "col": 5, "kind": "write", "function": "(*Bank).Transfer", "expr": "b.balance"},
		{"id": 3, "file": "my dir/a.go", "line": 1, "col": 2, "kind": "lock", "function": "f", "expr": "mu.Lock()"}
	]}`)
	tab, err := LoadSites(path)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := tab.Lookup(7)
	if want := (Site{ID: 7, File: "bank/bank.go", Line: 31, Col: 5, Kind: "write", Function: "(*Bank).Transfer", Expr: "b.balance"}); !ok || s != want {
		t.Errorf("Lookup(7) = %+v, %v; want %+v", s, ok, want)
	}
	if _, ok := tab.Lookup(4); ok {
		t.Errorf("Lookup(4) found a site")
	}
	var none *SiteTable
	if _, ok := none.Lookup(7); ok {
		t.Errorf("nil table has a site")
	}

	// The text form shows positions, and ParseText reads it back.
	evs := []Event{
		{Kind: EvWrite, Goroutine: 1, Seq: 4, Sub: 1, Site: 7, Addr: 0xc000012348, Value: 1},
		{Kind: EvLock, Goroutine: 1, Seq: 5, Site: 3, Addr: 0xc000012340},
		{Kind: EvUnlock, Goroutine: 1, Seq: 6, Site: 9, Addr: 0xc000012340},
	}
	text := testHeader.String() + "\n"
	for _, ev := range evs {
		text += string(ev.AppendFormat(nil, tab)) + "\n"
	}
	want := testHeader.String() + `
4.1 g=1 Write site=7(bank/bank.go:31:5) addr=0xc000012348 value=1
5 g=1 Lock site=3(my dir/a.go:1:2) addr=0xc000012340
6 g=1 Unlock site=9 addr=0xc000012340
`
	if text != want {
		t.Errorf("text with sites:\n%s\nwant\n%s", text, want)
	}
	tr, err := ParseText(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if tr.Events[i] != evs[i] {
			t.Errorf("parsed %+v, want %+v", tr.Events[i], evs[i])
		}
	}

	for _, tc := range []struct{ data, err string }{
		{`{"sites": [{"id": 0}]}`, "site with id 0"},
		{`{"sites": [{"id": 2}, {"id": 1}, {"id": 2}]}`, "two sites with id 2"},
		{`{"sites": [{"id": -1}]}`, "cannot unmarshal number -1"},
		{`[]`, "cannot unmarshal array"},
	} {
		path := writeFile(t, "bad.json", tc.data)
		if _, err := LoadSites(path); err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "site table "+path+": ") {
			t.Errorf("LoadSites(%s): %v, want an error about %s", tc.data, err, tc.err)
		}
	}
	if _, err := LoadSites(filepath.Join(t.TempDir(), "missing.json")); !os.IsNotExist(err) {
		t.Errorf("LoadSites of a missing file: %v", err)
	}
}

// TestUsedFollows checks Site.Used, Site.Follows and Site.GuardedBy
// against strings.Fields.
func TestUsedFollows(t *testing.T) {
	lists := []string{"", " ", "deref", "deref loop-exit ptr", "  loop-exit\tptr ", "deref-x", "x deref", "12 3 45", "123", "1 23"}
	words := []string{"", "deref", "loop-exit", "ptr", "x", "loop", "3", "12", "23", "123", "4"}
	for _, l := range lists {
		for _, w := range words {
			want := slices.Contains(strings.Fields(l), w)
			if got := (Site{Uses: l}).Used(w); got != want {
				t.Errorf("Site{Uses: %q}.Used(%q) = %v, want %v", l, w, got, want)
			}
			if id, err := strconv.ParseUint(w, 10, 32); err == nil {
				if got := (Site{After: l}).Follows(uint32(id)); got != want {
					t.Errorf("Site{After: %q}.Follows(%d) = %v, want %v", l, id, got, want)
				}
				if got := (Site{Guards: l}).GuardedBy(uint32(id)); got != want {
					t.Errorf("Site{Guards: %q}.GuardedBy(%d) = %v, want %v", l, id, got, want)
				}
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { (Site{Uses: "deref loop-exit ptr", After: "7 12"}).Follows(12) }); n != 0 {
		t.Errorf("Follows allocates %v times", n)
	}
}
