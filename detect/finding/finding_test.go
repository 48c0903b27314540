package finding

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"testing"
)

func nullFinding(root string) Finding {
	return Finding{
		Kind:    ConNull,
		Status:  Predicted,
		Message: "nil stored to thd.procInfo may be dereferenced concurrently",
		Sites: []Site{
			{File: root + "/kernels/mysql/mysql.go", Line: 72, Col: 27, Role: RoleDeref, Expr: "thd.procInfo", Function: "(*Server).ShowProcessList"},
			{File: root + "/kernels/mysql/mysql.go", Line: 61, Col: 6, Role: RoleNilStore, Expr: "thd.procInfo", Function: "(*THD).Dispatch"},
		},
		Tests: []string{"k/mysql.TestProcInfo"},
	}
}

// TestIDStable checks what the ID depends on: the kind and the roled
// sites' role, directory and file name, line and column, in any order;
// not the checkout, the functions, the expressions, or a site without a
// role placed before them (a static diagnostic's own position).
func TestIDStable(t *testing.T) {
	base := nullFinding("/a")
	base.SetID()
	if len(base.ID) != 12 {
		t.Fatalf("ID %q, want 12 hex digits", base.ID)
	}
	same := map[string]func(*Finding){
		"another checkout": func(f *Finding) { *f = nullFinding("/home/u/src") },
		"sites reversed":   func(f *Finding) { slices.Reverse(f.Sites) },
		"no functions or expressions": func(f *Finding) {
			for i := range f.Sites {
				f.Sites[i].Function, f.Sites[i].Expr = "", ""
			}
		},
		"static": func(f *Finding) {
			f.Status = Static
			f.Sites = append([]Site{{File: "/a/kernels/mysql/mysql.go", Line: 72, Col: 22}}, f.Sites...)
		},
		"another message": func(f *Finding) { f.Message = "m" },
	}
	differ := map[string]func(*Finding){
		"kind":      func(f *Finding) { f.Kind = ConUninit },
		"line":      func(f *Finding) { f.Sites[0].Line++ },
		"column":    func(f *Finding) { f.Sites[1].Col++ },
		"role":      func(f *Finding) { f.Sites[0].Role = RoleRead },
		"file":      func(f *Finding) { f.Sites[0].File = "/a/kernels/mysql/other.go" },
		"directory": func(f *Finding) { f.Sites[0].File = "/a/kernels/mysql2/mysql.go" },
		"one site":  func(f *Finding) { f.Sites = f.Sites[:1] },
	}
	for name, change := range same {
		f := nullFinding("/a")
		change(&f)
		if f.SetID(); f.ID != base.ID {
			t.Errorf("%s: ID %s, want %s", name, f.ID, base.ID)
		}
	}
	for name, change := range differ {
		f := nullFinding("/a")
		change(&f)
		if f.SetID(); f.ID == base.ID {
			t.Errorf("%s changed, ID stayed %s", name, f.ID)
		}
	}
	// Without any roled site, the sites without role count.
	a := ID(ConClosed, []Site{{File: "/a/p/p.go", Line: 15, Col: 10}})
	b := ID(ConClosed, []Site{{File: "/a/p/p.go", Line: 16, Col: 10}})
	if a == b {
		t.Errorf("role-less findings at different lines have the same ID %s", a)
	}
}

// TestIDInDecl checks the IDs of sites in function declarations: lines
// count from the declaration, so moving the functions (an edit above
// them) keeps the ID; an edit above a site in its function, or another
// function at the same offsets, changes it.
func TestIDInDecl(t *testing.T) {
	inDecl := func(shift int) Finding {
		f := nullFinding("/a")
		f.Sites[0].Decl, f.Sites[0].DeclLine = "(*Server).ShowProcessList", 66
		f.Sites[1].Decl, f.Sites[1].DeclLine = "(*THD).Dispatch", 58
		for i := range f.Sites {
			f.Sites[i].Line += shift
			f.Sites[i].DeclLine += shift
		}
		f.SetID()
		return f
	}
	base := inDecl(0)
	if moved := inDecl(7); moved.ID != base.ID {
		t.Errorf("functions moved down 7 lines: ID %s, want %s", moved.ID, base.ID)
	}
	plain := nullFinding("/a")
	if plain.SetID(); plain.ID == base.ID {
		t.Errorf("the declarations do not count in the ID %s", base.ID)
	}
	f := inDecl(0)
	f.Sites[0].Line++ // a line added in ShowProcessList above the dereference
	if f.SetID(); f.ID == base.ID {
		t.Errorf("a site moved within its function, ID stayed %s", f.ID)
	}
	f = inDecl(0)
	f.Sites[0].Decl = "(*Server).Kill"
	if f.SetID(); f.ID == base.ID {
		t.Errorf("a site in another function at the same offset, ID stayed %s", f.ID)
	}
}

// TestInDecl checks that InDecl finds the top-level function of a
// position, also inside a function literal, and none outside functions.
func TestInDecl(t *testing.T) {
	src := `package p

var v = 1

func F() {
	go func() {
		v = 2
	}()
}

func (s *S[T]) M() { v = 3 }

type S[T any] struct{}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	tf := fset.File(f.Pos())
	for _, tc := range []struct {
		line, col int
		decl      string
		declLine  int
	}{
		{3, 9, "", 0},
		{7, 3, "F", 5},
		{11, 22, "(*S).M", 11},
		{13, 1, "", 0},
	} {
		var s Site
		InDecl(&s, fset, f, tf.LineStart(tc.line)+token.Pos(tc.col-1))
		if s.Decl != tc.decl || s.DeclLine != tc.declLine {
			t.Errorf("line %d: in %q at %d, want %q at %d", tc.line, s.Decl, s.DeclLine, tc.decl, tc.declLine)
		}
	}
}

func TestStatusStrength(t *testing.T) {
	order := []Status{Static, NotReached, Predicted, Apart, TimedOut, Diverged, NotConfirmed, Confirmed}
	for i, s := range order {
		for j, u := range order {
			if got, want := s.Stronger(u), i > j; got != want {
				t.Errorf("%s.Stronger(%s) = %v, want %v", s, u, got, want)
			}
		}
	}
	if Status("bogus").Stronger(Static) {
		t.Errorf("an unknown status is stronger than static")
	}
}

func TestMerge(t *testing.T) {
	a := nullFinding("/a")
	a.Tests = []string{"k/mysql.TestB"}
	b := nullFinding("/a")
	b.Tests = []string{"k/mysql.TestA", "k/mysql.TestB"}
	b.Status, b.Validation, b.Repro = NotConfirmed, &Validation{Reason: "the forced run passed"}, "precog repro x"
	c := nullFinding("/a")
	c.Status, c.Validation = Diverged, &Validation{Reason: "left the recorded path at mysql.go:70"}
	other := Finding{Kind: ConClosed, Status: Predicted, Sites: []Site{{File: "/a/p/p.go", Line: 1, Col: 1, Role: RoleSend}}}
	before := Finding{Kind: ConClosed, Status: Predicted, Sites: []Site{{File: "/a/a/a.go", Line: 9, Col: 1, Role: RoleSend}}}

	got := Merge([]Finding{a, other, b, c, before})
	if len(got) != 3 {
		t.Fatalf("%d findings, want 3: %+v", len(got), got)
	}
	// Sorted by kind, then first site.
	if got[0].Kind != ConClosed || got[0].Sites[0].File != "/a/a/a.go" || got[1].Sites[0].File != "/a/p/p.go" || got[2].Kind != ConNull {
		t.Errorf("order: %v %v %v", got[0].Sites[0], got[1].Sites[0], got[2].Sites[0])
	}
	m := got[2]
	if m.ID == "" || m.Reports != 3 || !slices.Equal(m.Tests, []string{"k/mysql.TestA", "k/mysql.TestB", "k/mysql.TestProcInfo"}) {
		t.Errorf("merged: id %q, reports %d, tests %v", m.ID, m.Reports, m.Tests)
	}
	if m.Status != NotConfirmed || m.Validation != b.Validation || m.Repro != b.Repro {
		t.Errorf("merged status %s (%v, %q), want the strongest, not-confirmed, with its reason and reproducer", m.Status, m.Validation, m.Repro)
	}
	// Merge does not change its input's tests.
	if !slices.Equal(a.Tests, []string{"k/mysql.TestB"}) {
		t.Errorf("input tests changed to %v", a.Tests)
	}
	if d := Duplication(got); d != 5.0/3 {
		t.Errorf("duplication %v, want 5/3", d)
	}
}

// TestMergeApart: a data race that one witness's validation set apart
// (its forced runs touched different memory) and another's did not, as
// two shards of a job validate it, is the other's: any other verdict
// keeps it among the findings shown, whatever the order. Set apart on
// every witness, it stays apart, over a prediction alone.
func TestMergeApart(t *testing.T) {
	race := func(st Status, reason string) Finding {
		f := Finding{Kind: Race, Status: st, Sites: []Site{{File: "/m/a.go", Line: 3, Col: 2, Role: RoleWrite}, {File: "/m/b.go", Line: 7, Col: 1, Role: RoleRead}}}
		if reason != "" {
			f.Validation = &Validation{Reason: reason}
		}
		return f
	}
	apart := race(Apart, "with the write just before the read, the accesses touched different memory")
	for _, other := range []Finding{
		race(NotConfirmed, "the other order held on one address and nothing failed"),
		race(Confirmed, "the two accesses were held at once"),
		race(Diverged, "the forced order could not be reached"),
		race(TimedOut, "the forced run went past its time bound"),
	} {
		for _, in := range [][]Finding{{apart, other}, {other, apart}} {
			got := Merge(in)
			if len(got) != 1 || got[0].Status != other.Status || got[0].Validation != other.Validation {
				t.Errorf("merging apart and %s: %s (%+v), want %s with its validation", other.Status, got[0].Status, got[0].Validation, other.Status)
			}
		}
	}
	if got := Merge([]Finding{race(Predicted, ""), apart, apart}); got[0].Status != Apart || got[0].Validation != apart.Validation || got[0].Reports != 3 {
		t.Errorf("merging a prediction and two apart: %s (%+v, %d reports), want apart with its reason", got[0].Status, got[0].Validation, got[0].Reports)
	}
}

func TestCompare(t *testing.T) {
	mk := func(kind, file string, line, col int, id string) Finding {
		return Finding{ID: id, Kind: kind, Sites: []Site{{File: file, Line: line, Col: col}}}
	}
	sorted := []Finding{
		mk(ConClosed, "/z.go", 1, 1, "9"),
		mk(ConNull, "/a.go", 2, 1, "1"),
		mk(ConNull, "/a.go", 2, 3, "0"),
		mk(ConNull, "/a.go", 10, 1, "5"),
		mk(ConNull, "/b.go", 1, 1, "3"),
		mk(ConNull, "/b.go", 1, 1, "4"),
		{ID: "2", Kind: OSCS},
	}
	for i := range sorted {
		for j := range sorted {
			c := Compare(sorted[i], sorted[j])
			if (i < j && c >= 0) || (i > j && c <= 0) || (i == j && c != 0) {
				t.Errorf("Compare(#%d, #%d) = %d", i, j, c)
			}
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	f := nullFinding("/a")
	f.Spawns = []Site{{File: "/a/kernels/mysql/mysql_test.go", Line: 26, Col: 2, Role: RoleGo}, {}}
	f.Stacks = [][]Site{{{File: "/a/kernels/mysql/mysql.go", Line: 70, Col: 3, Role: RoleCall, Function: "f"}}, nil}
	f.Evidence = Evidence{Locks: [][]string{{"s.mu@mysql.go:66"}, {}}, Clocks: []string{"g0:2", "g0:1"},
		Suspiciousness: 0.5, FailingRuns: 2, PassingRuns: 1, Notes: []string{"n"}}
	f.Reports, f.Status, f.Repro = 2, Confirmed, "precog repro 3fe2c2cb580d"
	f.Validation = &Validation{Effect: "panic", Reason: "nil pointer dereference", Test: "k/mysql.TestProcInfo", Runs: 1, Failed: 1, WallNs: 5}
	f.Witnesses = []Witness{{Test: "k/mysql.TestProcInfo", Run: 1, Events: []Event{{Role: RoleDeref, G: 2, Site: 7, N: 1, Kind: "R", Index: 4}}}}
	f.Sites[0].ID = 7
	f.Related = []Related{{File: "/a/x.go", Line: 1, Col: 2, EndLine: 1, EndCol: 5, Message: "read here"}}
	f.Analyzer, f.Package, f.URL = "connull", "k/mysql", "https://example.com"
	f.Sites[0].EndLine, f.Sites[0].EndCol = 72, 40
	f.SetID()
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var g Finding
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f, g) {
		t.Errorf("round trip:\n%+v\nwant\n%+v", g, f)
	}
	// A predicted finding's JSON has no confirmation or static fields.
	p := nullFinding("/a")
	data, _ = json.Marshal(p)
	var keys map[string]any
	json.Unmarshal(data, &keys)
	for _, k := range []string{"validation", "witnesses", "repro", "related", "analyzer", "package", "url"} {
		if _, ok := keys[k]; ok {
			t.Errorf("predicted finding's JSON has %q: %s", k, data)
		}
	}
}

func TestCatalog(t *testing.T) {
	seen := make(map[string]bool)
	for _, k := range Kinds() {
		if seen[k.Name] {
			t.Errorf("kind %s twice", k.Name)
		}
		seen[k.Name] = true
		if k.Summary == "" || (!k.Static && !k.Runtime) {
			t.Errorf("kind %s: no summary, or reported by no one", k.Name)
		}
		if !Valid(k.Name) {
			t.Errorf("Valid(%s) = false", k.Name)
		}
	}
	for _, name := range []string{ConNull, ConUninit, ConClosed, ConIndex, ConMap, OSCS, Crash, TestFailed, Race, Limit, Unicorn(1), Unicorn(UnicornPatterns)} {
		if !seen[name] {
			t.Errorf("%s is not in the catalog", name)
		}
	}
	for _, name := range []string{"", "con-bogus", Unicorn(0), Unicorn(UnicornPatterns + 1), "unicorn-p07", InternalError} {
		if Valid(name) {
			t.Errorf("Valid(%q) = true", name)
		}
	}
	if n := len(RuntimeKinds()); n != 9+UnicornPatterns {
		t.Errorf("%d runtime kinds, want the five ConMem kinds, oscs, crash, test-failed, race and %d Unicorn patterns", n, UnicornPatterns)
	}
}

func TestStatusWords(t *testing.T) {
	for s, want := range map[Status]string{NotConfirmed: "not confirmed", TimedOut: "timed out", NotReached: "not reached", Confirmed: "confirmed"} {
		if got := s.Words(); got != want {
			t.Errorf("%q.Words() = %q, want %q", s, got, want)
		}
	}
}

// TestHeads: the races of TestMain's write of a global against the reads
// of three functions are one group at the write, headed by the confirmed
// one though another comes first by Compare, and so is a race of another
// store of the write's statement (its line, another column). Controls,
// each alone: the same position in another role or of another kind, two
// tests failed at one line, a static finding, one with no site, a write
// on the next line.
func TestHeads(t *testing.T) {
	w := Site{File: "/m/sip/sip_test.go", Line: 10, Col: 2, Role: RoleWrite}
	race := func(readFile string, st Status) Finding {
		f := Finding{Kind: Race, Status: st, Sites: []Site{w, {File: readFile, Line: 5, Col: 1, Role: RoleRead}}}
		f.SetID()
		return f
	}
	fail := Finding{Kind: TestFailed, Status: Confirmed, Sites: []Site{{File: "/m/a_test.go", Line: 3, Col: 1, Role: RoleFail}}, Tests: []string{"m.TestA"}}
	fail2 := fail
	fail2.Tests = []string{"m.TestB"}
	fs := []Finding{
		race("/m/sip/a.go", Diverged),  // 0
		race("/m/sip/b.go", Confirmed), // 1: the head
		race("/m/sip/c.go", Predicted), // 2
		{Kind: Race, Status: Confirmed, Sites: []Site{{File: w.File, Line: 10, Col: 2, Role: RoleRead}, {File: "/m/sip/a.go", Line: 6, Col: 1, Role: RoleWrite}}}, // 3: read there
		{Kind: ConMap, Status: Predicted, Sites: []Site{w, {File: "/m/sip/a.go", Line: 5, Col: 1, Role: RoleWrite}}},                                              // 4: another kind
		fail,  // 5
		fail2, // 6
		{Kind: Race, Status: Static, Analyzer: "x", Sites: []Site{w}}, // 7
		{Kind: Race, Status: Predicted},                               // 8
		{Kind: Race, Status: Predicted, Sites: []Site{{File: w.File, Line: 10, Col: 9, Role: RoleWrite}, {File: "/m/sip/a.go", Line: 7, Col: 1, Role: RoleRead}}}, // 9: the statement's other store
		{Kind: Race, Status: Predicted, Sites: []Site{{File: w.File, Line: 11, Col: 2, Role: RoleWrite}, {File: "/m/sip/a.go", Line: 7, Col: 1, Role: RoleRead}}}, // 10: the next line
	}
	want := []int{1, 1, 1, 3, 4, 5, 6, 7, 8, 1, 10}
	if got := Heads(fs); !slices.Equal(got, want) {
		t.Errorf("Heads = %v, want %v", got, want)
	}
	// Which one heads does not depend on the order given.
	rev := slices.Clone(fs[:3])
	slices.Reverse(rev)
	if got := Heads(rev); !slices.Equal(got, []int{1, 1, 1}) {
		t.Errorf("Heads of the reversed group = %v, want the confirmed one, 1, for all", got)
	}
	// Among equal statuses, the first by Compare (here by ID).
	fs[1].Status = Diverged
	first := 0
	if fs[1].ID < fs[0].ID {
		first = 1
	}
	if got := Heads(fs[:3]); !slices.Equal(got, []int{first, first, first}) {
		t.Errorf("Heads of two diverged and a predicted = %v, want %d for all", got, first)
	}
	// A finding set apart heads no group with one that is not, even a
	// prediction: the text output leaves it out, and the others' block
	// must have the head that JSON's sameAs names. Set apart together,
	// the first by Compare heads.
	fs[0].Status, fs[1].Status, fs[2].Status = Apart, Apart, Predicted
	if got := Heads(fs[:3]); !slices.Equal(got, []int{2, 2, 2}) {
		t.Errorf("Heads of two apart and a predicted = %v, want the predicted one, 2, for all", got)
	}
	if got := Heads(fs[:2]); !slices.Equal(got, []int{first, first}) {
		t.Errorf("Heads of two apart = %v, want %d for both", got, first)
	}
}

// TestUnseenSpawn: an unseen spawn names the function that started its
// goroutine, and, when that is the standard library's, the first function
// outside it up the chain; a dependency's go statement needs no From, and
// a chain of the standard library's alone has none. Every one is an
// UnseenSpawn.
func TestUnseenSpawn(t *testing.T) {
	for _, c := range []struct {
		creators       []string
		function, from string
	}{
		{nil, "", ""},
		{[]string{"example.com/dep.Handle"}, "example.com/dep.Handle", ""},
		{[]string{"github.com/stripe/goproxy.(*ProxyHttpServer).ServeHTTP", "net/http.serverHandler.ServeHTTP"}, "github.com/stripe/goproxy.(*ProxyHttpServer).ServeHTTP", ""},
		{[]string{"net/http.(*Server).Serve", "net/http/httptest.(*Server).goServe.func1", "github.com/stripe/goproxy.(*Proxy).Listen", "example.com/m.TestProxy"}, "net/http.(*Server).Serve", "github.com/stripe/goproxy.(*Proxy).Listen"},
		{[]string{"net/http.(*Server).Serve", "testing.tRunner"}, "net/http.(*Server).Serve", ""},
		{[]string{"time.goFunc"}, "time.goFunc", ""},
	} {
		s := UnseenSpawn(c.creators)
		if s.Function != c.function || s.From != c.from || !s.IsUnseenSpawn() {
			t.Errorf("UnseenSpawn(%q) = function %q from %q (unseen %v), want %q, %q", c.creators, s.Function, s.From, s.IsUnseenSpawn(), c.function, c.from)
		}
	}
}

// TestStdPackage: cmd/go's rule, a dot in the first element or not.
func TestStdPackage(t *testing.T) {
	for path, want := range map[string]bool{
		"net/http": true, "fmt": true, "internal/poll": true, "main": true,
		"example.com/dep": false, "github.com/stripe/goproxy": false, "gopkg.in/yaml.v3": false, "": false,
	} {
		if got := StdPackage(path); got != want {
			t.Errorf("StdPackage(%q) = %v, want %v", path, got, want)
		}
	}
}
