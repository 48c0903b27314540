// Package finding is precog's one model of what it reports, for the static
// checks (precog vet, go vet -vettool) and the trace checkers (precog test,
// through detect/conmem, detect/oscs and detect/unicorn) alike: a
// concurrency bug, named by the sites of the user's code that make it up, of
// one kind of the catalog (kinds.go), with a status saying how sure precog
// is of it and the evidence for it.
//
// A finding's ID is a hash of its kind and the positions of its sites that
// have a role (the file's directory and base name, the enclosing function
// declaration and the line within it, the column, with the role): the same
// bug gets the same ID in every run, every test, every checkout of the
// same code, and from both sides, since a static check names the sites of
// its diagnostic in the catalog's roles (see internal/analyzerutil.Sites)
// as the trace checkers do. Edits outside the functions of its sites leave
// it alone, so that a baseline of accepted IDs outlives unrelated changes;
// it changes when the sites' own function changes above them. Merge folds the findings of many tests into one per ID,
// keeping the tests that exposed each and the strongest status.
//
// # Adding a kind
//
// Add one entry to the catalog in kinds.go (a name constant if code needs
// to spell it, its summary, its crash shape, its roles, which side reports
// it), then write its checker: a static check reports diagnostics whose
// Category is the name and names their sites with the entry's roles; a
// trace checker returns Findings of that Kind whose sites take those
// roles. Help texts, expect files, the SARIF rules and the writers take
// the kind from the catalog; nothing else lists kinds.
package finding

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"go/ast"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/precog-dev/precog/shim/trace"
)

// Status says how sure precog is of a finding. A finding starts static
// (found without running anything) or predicted (found in a recorded run);
// validation turns a predicted one into one of the other five, with its
// Validation (whose Reason says why) and, when confirmed, its Repro.
// precog test -vet takes static findings to the runs: one whose sites no
// run reached is not-reached, the others are validated as predicted ones.
type Status string

const (
	// Static: a static check found it; nothing ran.
	Static Status = "static"
	// NotReached: a static finding that precog test -vet looked for in
	// the recorded runs, none of which ran its sites on one object from
	// two goroutines (Validation.Reason says which site no run reached):
	// nothing could be forced, and it stays as unproven as a static one.
	NotReached Status = "not-reached"
	// Predicted: some interleaving of a recorded run would make the
	// sites meet; no run has shown it yet.
	Predicted Status = "predicted"
	// Confirmed: a run forced into that interleaving failed with the
	// effect the kind names, at or under the predicted site (see
	// Validation.Effect).
	Confirmed Status = "confirmed"
	// NotConfirmed: the forced order was reached and nothing failed.
	NotConfirmed Status = "not-confirmed"
	// Diverged: the forced order could not be reached; Validation.Reason
	// names the step that never came.
	Diverged Status = "diverged"
	// TimedOut: a forced run used up its time.
	TimedOut Status = "timed-out"
	// Apart: a data race whose forced runs contradict the prediction.
	// Every forced run that held an order of its two accesses ran them
	// on different memory (two addresses, or one address in two GC
	// epochs; Validation.Reason gives both), and none ran them on one
	// piece of memory nor crashed: the recorded run paired two objects
	// at one address, an object freed and a new one allocated there (a
	// fresh per-call struct), and the sites alone are no race. It is a
	// status of its own rather than a mark on a not-confirmed finding so
	// that every reader of Status (Merge, Heads, the summary's counts,
	// SARIF's level, the HTML report's sections, -fail-on) tells it apart
	// without a second field, and a consumer that only knows the older
	// statuses sees an unknown one rather than a misleading
	// not-confirmed. precog test's text output leaves such findings out
	// unless asked (-show-apart); -json, -ci and the baselines keep them,
	// under the same ID.
	Apart Status = "apart"
)

// strength orders statuses for Merge: a run that failed under the forced
// order outweighs one that passed, which outweighs one that could not be
// forced, which outweighs one whose accesses the forced runs set apart
// (Apart: the run held, but what it showed is that this witness paired
// two objects), which outweighs a prediction, which outweighs static
// analysis. Apart is the weakest verdict of validation, so that any
// other verdict on the same ID (another witness, another shard) keeps
// the finding among those a user reads: it is set apart only when every
// witness validated says so.
var strength = map[Status]int{
	Static:       1,
	NotReached:   2,
	Predicted:    3,
	Apart:        4,
	TimedOut:     5,
	Diverged:     6,
	NotConfirmed: 7,
	Confirmed:    8,
}

// Stronger reports whether s says more about a finding than t.
func (s Status) Stronger(t Status) bool { return strength[s] > strength[t] }

// Words is the status as text reports write it: "not confirmed" for
// "not-confirmed", the JSON value's dashes as spaces.
func (s Status) Words() string { return strings.ReplaceAll(string(s), "-", " ") }

// A Site is one place in the user's code that takes part in a finding.
type Site struct {
	File string `json:"file,omitempty"` // absolute path; "" (and Line 0) if unknown
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
	// EndLine and EndCol end the site's span, when known (static checks).
	EndLine  int    `json:"endLine,omitempty"`
	EndCol   int    `json:"endCol,omitempty"`
	Role     string `json:"role,omitempty"` // what the site does in the bug, one of the Role constants or a Unicorn access label; "" for a site that only places the finding
	Expr     string `json:"expr,omitempty"` // the source expression, such as "thd.procInfo"
	Function string `json:"function,omitempty"`
	// Decl and DeclLine are the top-level function declaration that
	// holds the site (DeclName's name, the line of its func keyword), if
	// any: ID counts the site's line from DeclLine.
	Decl     string `json:"decl,omitempty"`
	DeclLine int    `json:"declLine,omitempty"`
	// ID is the site's ID in the site table of the instrumented build
	// that recorded the run (0 for a static finding): reproducers name
	// sites by it as well as by position.
	ID uint32 `json:"siteId,omitempty"`
	// Goroutine names the goroutine that ran the site by the go statement
	// that started it ("" for a test's own goroutine), so the two sides of a
	// finding can be told apart.
	Goroutine string `json:"goroutine,omitempty"`
	// From is an UnseenSpawn's: when the function that started the
	// goroutine (Function) is the standard library's, the innermost
	// function outside it up the chain of the goroutine's creation (that
	// function's callers, its goroutine's creator and theirs): the code
	// that called into the standard library. "" if none was recorded.
	From string `json:"from,omitempty"`
}

// unseenSpawn is the expression of UnseenSpawn.
const unseenSpawn = "a go statement outside the instrumented code"

// UnseenSpawn is the Spawns entry of a site whose goroutine code that is
// not instrumented started (a dependency's or the standard library's go
// statement): the trace has neither its start nor the joins of it.
// creators are the functions up the chain of the goroutine's creation,
// one per package, innermost first (hb.Goroutine.Creators): the first is
// the Site's Function, the one whose go statement started it, and if
// that is the standard library's, the first that is not is its From (see
// StdPackage). The precog test hint names their packages, the ones that
// -instrument-deps would record or order.
func UnseenSpawn(creators []string) Site {
	s := Site{Role: RoleGo, Expr: unseenSpawn}
	if len(creators) == 0 {
		return s
	}
	s.Function = creators[0]
	if !StdPackage(trace.FuncPackage(s.Function)) {
		return s
	}
	for _, fn := range creators[1:] {
		if p := trace.FuncPackage(fn); p != "" && !StdPackage(p) {
			s.From = fn
			break
		}
	}
	return s
}

// StdPackage reports whether the import path is one of the standard
// library's, by cmd/go's rule (search.IsStandardImportPath): no dot in its
// first element. Dependencies' module paths have one (module.CheckPath);
// the main module's may not, but its packages are the ones precog
// instruments. A dependency replaced by a local directory under a path
// without a dot is taken for the standard library's: an assumption, since
// the go command reads no module data where this runs.
func StdPackage(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return path != "" && !strings.Contains(first, ".")
}

// IsUnseenSpawn reports whether s is UnseenSpawn's.
func (s Site) IsUnseenSpawn() bool { return s.File == "" && s.Role == RoleGo && s.Expr == unseenSpawn }

// UnseenClose begins the note of a finding whose later side's goroutine,
// after the other side's event, received from a channel closed by code
// that precog did not instrument (the trace has no close of it): that
// close may order the two sides.
const UnseenClose = "a receive found its channel closed by code precog did not instrument"

// SiteOf returns the site of the site table with the given ID, in role. A
// site the table does not know keeps only its role and an Expr saying so.
func SiteOf(sites *trace.SiteTable, id uint32, role string) Site {
	s, ok := sites.Lookup(id)
	if !ok {
		return Site{Role: role, Expr: "site " + strconv.FormatUint(uint64(id), 10) + " (not in the site table)"}
	}
	return Site{File: s.File, Line: s.Line, Col: s.Col, Role: role, Expr: s.Expr, Function: s.Function, ID: id, Decl: s.Decl, DeclLine: s.DeclLine}
}

// Pos returns the site's position as file:line:col.
func (s Site) Pos() string {
	return s.File + ":" + strconv.Itoa(s.Line) + ":" + strconv.Itoa(s.Col)
}

// Evidence is why a checker believes the sites can meet. Each checker fills
// the parts it has.
type Evidence struct {
	// Locks lists, per site of the finding in order, the locks held there
	// (hb.LockName's names), empty when none were held.
	Locks [][]string `json:"locks,omitempty"`
	// Clocks lists, per site in order, the vector clock at the event, as
	// "g1:4 g2:7", showing that neither side happens before the other.
	Clocks []string `json:"clocks,omitempty"`
	// Suspiciousness is Unicorn's Jaccard score, in [0, 1].
	Suspiciousness float64 `json:"suspiciousness,omitempty"`
	// FailingRuns and PassingRuns count the runs whose trace held the
	// pattern (Unicorn).
	FailingRuns int `json:"failingRuns,omitempty"`
	PassingRuns int `json:"passingRuns,omitempty"`
	// Notes are further facts, one short sentence each.
	Notes []string `json:"notes,omitempty"`
}

// Related is one piece of a static finding's evidence, as its check wrote
// it (go/analysis's related information): a place and what happens there.
type Related struct {
	File    string `json:"file,omitempty"` // absolute path; "" if the check gave no position
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	EndLine int    `json:"endLine,omitempty"`
	EndCol  int    `json:"endCol,omitempty"`
	Message string `json:"message"`
}

// A Finding is one bug, static or from a run.
type Finding struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"` // a name of the catalog (Kinds)
	Status  Status `json:"status"`
	Message string `json:"message"` // one lower-case sentence, no trailing period
	// Sites are the places of the bug. Sites[0] is where the finding is
	// reported; a static finding's first site is its diagnostic's position
	// and has no role, followed by the sites its check named in roles.
	Sites []Site `json:"sites"`
	// Spawns are the go statements that started the goroutines of the
	// sites, one per site in order; a site on a test's own goroutine has a
	// zero Site here, one on a goroutine that code precog did not
	// instrument started has UnseenSpawn. JSON output (report.JSON) lists only the known ones:
	// each site's Goroutine names its own.
	Spawns []Site `json:"spawns,omitempty"`
	// Stacks are, per site in order, the functions open at the site,
	// outermost first, from the goroutine's function entry and exit events
	// (empty without precog record -funcs; JSON output omits Stacks
	// when every entry is empty).
	Stacks   [][]Site `json:"stacks,omitempty"`
	Evidence Evidence `json:"evidence"`
	// Tests are the tests whose runs exposed the finding, as
	// "importpath.TestName", sorted.
	Tests []string `json:"tests"`
	// Reports counts how many times checkers reported the finding before
	// Merge folded them into one.
	Reports int `json:"reports"`
	// Witnesses are recorded runs that exposed the finding, with the
	// events that make it up: what validation forces into the predicted
	// order. Merge keeps up to MaxWitnesses.
	Witnesses []Witness `json:"witnesses,omitempty"`
	// Validation is what forcing the predicted order did, once validated.
	Validation *Validation `json:"validation,omitempty"`
	// Repro is the command that reproduces a confirmed finding, runnable
	// from the directory precog test ran in.
	Repro string `json:"repro,omitempty"`
	// Baselined says that the finding's ID is in the baseline the run
	// was given (precog test -baseline): a known finding, listed, that
	// does not fail the job.
	Baselined bool `json:"baselined,omitempty"`
	// SameAs is the ID of the finding that heads this one's group
	// (Heads): another finding of its kind reported at its site. The
	// writers set it; "" for a group's head and a finding alone.
	SameAs string `json:"sameAs,omitempty"`

	// The rest is for static findings: the evidence as the check wrote it,
	// the check's analyzer, the package it was found in and the check's
	// documentation.
	Related  []Related `json:"related,omitempty"`
	Analyzer string    `json:"analyzer,omitempty"`
	Package  string    `json:"package,omitempty"`
	URL      string    `json:"url,omitempty"`
}

// MaxWitnesses bounds Finding.Witnesses: validation tries the next
// witness only when one diverges, and rarely needs a third.
const MaxWitnesses = 3

// A Witness is one recorded run in which a checker found the finding: the
// test and run (Test and Run are set by the driver that read the trace),
// and the events of that run that make up the finding.
type Witness struct {
	Test   string  `json:"test,omitempty"` // importpath.TestName
	Run    int     `json:"run"`            // 0 for the unperturbed recording
	Events []Event `json:"events"`
}

// An Event is one event of a recorded run, named as the shim's control
// plans name points: the N-th event (from 0) of the goroutine with logical
// id G at site Site. Role says what it does in the bug; it is one of the
// finding's site roles, or a role of an event the checker saw but does not
// report as a site (such as "check", the read that tests a pointer before
// the dereference).
type Event struct {
	Role string `json:"role"`
	G    uint64 `json:"g"`
	Site uint32 `json:"site"`
	N    uint64 `json:"n"`
	Kind string `json:"kind"` // the trace kind's name, such as "W" or "close"
	// Index is the event's position in the run's trace, in the order
	// trace.ReadAll gives: which of two events the run recorded first.
	Index int `json:"index"`
	// Lock is the Lock (or RLock) event that opened the outermost
	// critical section the event is in, if any: a goroutine held back
	// there, rather than inside the section, does not keep others out of
	// it.
	Lock *Event `json:"lock,omitempty"`
}

// Validation is the outcome of forcing a finding's predicted order.
type Validation struct {
	// Effect says what failed, for a confirmed finding: "panic",
	// "fatal" (a runtime fatal error, such as concurrent map writes) or
	// "hang" at or called from a predicted site, or "test-failed" (the
	// test failed under the forced order where its recorded run passed).
	Effect string `json:"effect,omitempty"`
	// Reason is one sentence: the failure seen, or why nothing failed,
	// or the step that never came.
	Reason string `json:"reason,omitempty"`
	// Environment, for a failure a test showed by itself, says what its
	// output shows of the machine rather than the code, and the line
	// that shows it: "a refused connection: dial tcp 10.1.2.3:4150:
	// connect: connection refused" (pipeline/failure's Environment and
	// MissingTestdata).
	Environment string `json:"environment,omitempty"`
	// Alone, for such a failure, says that the test failed each time it
	// ran in a process of its own but passed when its package's tests ran
	// together, as go test runs them: it needs what another test sets up.
	Alone bool   `json:"alone,omitempty"`
	Test  string `json:"test,omitempty"` // the test that was forced
	Runs  int    `json:"runs"`           // forced runs made
	// Seeds are the perturbation seeds of the retries of orders that
	// diverged (or, for a data race, held with its two accesses on
	// different memory), in the order tried (none if no order was
	// retried).
	Seeds []uint64 `json:"seeds,omitempty"`
	// Failed counts the forced runs that showed the effect (con-map:
	// the rate of overlap).
	Failed int   `json:"failed"`
	WallNs int64 `json:"wallNs"` // time spent validating the finding
	// Order is the interleaving the run that decided the status was
	// forced into (the last one tried when none confirmed the finding),
	// nil when nothing was forced: what the report draws.
	Order *Order `json:"order,omitempty"`
}

// An Order is an interleaving of a witness's events that validation
// forces: in words, and as its steps.
type Order struct {
	// What says it in words, such as "the nil store between the check
	// and the dereference".
	What string `json:"what"`
	// Run is the witness's run the events belong to (Witness.Run).
	Run int `json:"run"`
	// Edges are the steps: each holds After back until Before ran.
	Edges []Edge `json:"edges,omitempty"`
	// Together are groups of events released at the same instant.
	Together [][]Event `json:"together,omitempty"`
}

// An Edge is one step of an Order: Before runs, then After.
type Edge struct {
	Before Event `json:"before"`
	After  Event `json:"after"`
}

// SetID computes f.ID from its kind and sites.
func (f *Finding) SetID() { f.ID = ID(f.Kind, f.Sites) }

// ID is the stable ID of a finding of kind at sites: a hash of the kind
// and, for each site with a role, the role, the file's directory and base
// name, the line and the column, in any order. Sites without a role count
// only when no site has one. A site in a function declaration (Decl)
// counts its line from the declaration's, with the declaration's name, so
// that an edit outside the function (a line added above it, an import, a
// function moved) leaves the ID as it was; an edit above the site in the
// same function changes it. The function a site is in otherwise does not
// count: a static check and a trace checker name a closure differently,
// but both name its declaration by DeclName.
func ID(kind string, sites []Site) string {
	roled := slices.ContainsFunc(sites, func(s Site) bool { return s.Role != "" })
	var keys []string
	for _, s := range sites {
		if roled && s.Role == "" {
			continue
		}
		file := filepath.Base(filepath.Dir(s.File)) + "/" + filepath.Base(s.File)
		line := strconv.Itoa(s.Line)
		if s.Decl != "" && s.DeclLine > 0 && s.Line >= s.DeclLine {
			line = s.Decl + "+" + strconv.Itoa(s.Line-s.DeclLine)
		}
		keys = append(keys, strings.Join([]string{s.Role, file, line, strconv.Itoa(s.Col)}, "\x00"))
	}
	slices.Sort(keys)
	h := sha256.New()
	h.Write([]byte(kind))
	for _, k := range keys {
		h.Write([]byte{0})
		h.Write([]byte(k))
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// DeclName names a function declaration as sites do (Site.Decl): F, T.M
// or (*T).M, without type parameters.
func DeclName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	star := false
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = true, s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	n := "?"
	if id, ok := t.(*ast.Ident); ok {
		n = id.Name
	}
	if star {
		return "(*" + n + ")." + d.Name.Name
	}
	return n + "." + d.Name.Name
}

// InDecl sets s.Decl and s.DeclLine from the function declaration of f
// that holds pos, if one does.
func InDecl(s *Site, fset *token.FileSet, f *ast.File, pos token.Pos) {
	i, found := slices.BinarySearchFunc(f.Decls, pos, func(d ast.Decl, p token.Pos) int {
		switch {
		case d.End() <= p:
			return -1
		case d.Pos() > p:
			return 1
		}
		return 0
	})
	if !found {
		return
	}
	if d, ok := f.Decls[i].(*ast.FuncDecl); ok {
		s.Decl, s.DeclLine = DeclName(d), fset.Position(d.Pos()).Line
	}
}

// Merge folds findings with the same ID into one, whose Tests is the union
// of theirs and whose Reports is the sum, and returns them sorted by kind,
// then by the first site's position, then by ID. The first finding of an ID
// gives the rest of the merged one (evidence, stacks), except that the
// strongest status wins, with its validation and reproducer, and that the
// witnesses of all are kept, in order, up to MaxWitnesses. Findings
// without an ID get one first.
func Merge(fs []Finding) []Finding {
	byID := make(map[string]int)
	var out []Finding
	for _, f := range fs {
		if f.ID == "" {
			f.SetID()
		}
		if f.Reports == 0 {
			f.Reports = 1
		}
		i, ok := byID[f.ID]
		if !ok {
			byID[f.ID] = len(out)
			f.Tests = slices.Clone(f.Tests)
			f.Witnesses = slices.Clone(f.Witnesses[:min(len(f.Witnesses), MaxWitnesses)])
			out = append(out, f)
			continue
		}
		m := &out[i]
		m.Tests = append(m.Tests, f.Tests...)
		m.Reports += f.Reports
		for _, w := range f.Witnesses {
			if len(m.Witnesses) < MaxWitnesses {
				m.Witnesses = append(m.Witnesses, w)
			}
		}
		if f.Status.Stronger(m.Status) {
			m.Status, m.Validation, m.Repro = f.Status, f.Validation, f.Repro
		}
	}
	for i := range out {
		slices.Sort(out[i].Tests)
		out[i].Tests = slices.Compact(out[i].Tests)
	}
	slices.SortFunc(out, Compare)
	return out
}

// Heads groups the findings a user reads as one bug and returns, for each
// of fs, the index of its group's head (its own for a head). A group is
// the findings of one kind from the runs reported at one line in one role
// (Sites[0]: the write of a global that TestMain sets, against the reads
// of five functions; a read against the initializations of two tests;
// the eight stores of one statement `b[i], ..., b[i+7] = ...`, each at a
// column of its own), each a pair of sites of its own with its ID, status
// and evidence: the same line to fix, met by several partners or reached
// by several accesses of one statement. The head is the one with the
// strongest status, then the first by Compare, except that a finding set
// apart (Apart) heads only a group of such findings: the text output,
// which leaves those out by default, then shows the others' groups with
// the heads that JSON's sameAs names. A failure of a recorded run
// (crash, test-failed), a static finding and one with no site are alone:
// each failed test and each diagnostic is a fact of its own.
func Heads(fs []Finding) []int {
	heads := make([]int, len(fs))
	byKey := make(map[groupKey]int)
	for i, f := range fs {
		heads[i] = i
		k, ok := groupOf(f)
		if !ok {
			continue
		}
		h, seen := byKey[k]
		if !seen || leads(f, fs[h]) {
			byKey[k] = i
		}
	}
	for i, f := range fs {
		if k, ok := groupOf(f); ok {
			heads[i] = byKey[k]
		}
	}
	return heads
}

// leads reports whether f rather than h heads their group (Heads).
func leads(f, h Finding) bool {
	if (f.Status == Apart) != (h.Status == Apart) {
		return h.Status == Apart
	}
	return f.Status.Stronger(h.Status) || f.Status == h.Status && Compare(f, h) < 0
}

type groupKey struct {
	kind, role, file string
	line             int
}

// groupOf returns the key of f's group, if f can share one (see Heads).
func groupOf(f Finding) (groupKey, bool) {
	if len(f.Sites) == 0 || f.Sites[0].File == "" || f.Kind == Crash || f.Kind == TestFailed ||
		f.Status == Static || f.Analyzer != "" {
		return groupKey{}, false
	}
	s := f.Sites[0]
	return groupKey{f.Kind, s.Role, s.File, s.Line}, true
}

// Compare orders findings by kind, first site's file, line and column, then ID.
func Compare(a, b Finding) int {
	c := cmp.Compare(a.Kind, b.Kind)
	if c != 0 {
		return c
	}
	if len(a.Sites) > 0 && len(b.Sites) > 0 {
		sa, sb := a.Sites[0], b.Sites[0]
		if c := cmp.Or(cmp.Compare(sa.File, sb.File), cmp.Compare(sa.Line, sb.Line), cmp.Compare(sa.Col, sb.Col)); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.ID, b.ID)
}

// Duplication is the CFP paper's duplication rate of a set of reports: the
// number of reports divided by the number of unique findings after Merge
// (1 when every report is a different bug; 0 for no findings).
func Duplication(merged []Finding) float64 {
	if len(merged) == 0 {
		return 0
	}
	n := 0
	for _, f := range merged {
		n += f.Reports
	}
	return float64(n) / float64(len(merged))
}
