package cfp

import (
	"slices"
	"strconv"

	"github.com/precog-dev/precog/shim/trace"
)

// A Plan is the static side of CFP for one instrumented build: the
// functions of the instrumented packages and why some of them were not
// logged. The instrumenter writes it as JSON beside the site table.
type Plan struct {
	Funcs []PlanFunc `json:"funcs"`
}

// A PlanFunc is one function of a Plan.
type PlanFunc struct {
	// Key identifies the function: the position of its body's opening
	// brace (FuncKey), where its "func" site is.
	Key  string `json:"key"`
	Name string `json:"name"` // package path and name, such as "(*example.com/p.T).run"
	End  int    `json:"end"`  // the line of the body's closing brace
	// Skip says why the cheap run does not log the function's entry and
	// exit: "" (it does), "opt1" (it touches no shared memory), "opt2"
	// (it inherits its callers' pairs: Inherits), "pre" (it runs only
	// before any goroutine starts) or "test" (it is test code, the
	// suite's input rather than the program).
	Skip     string   `json:"skip,omitempty"`
	Inherits []string `json:"inherits,omitempty"` // keys of the callers, for opt2
	// Spawned is set when the function runs on a goroutine that its
	// package starts: some test should run it concurrently with
	// something.
	Spawned bool `json:"spawned,omitempty"`
}

// FuncKey returns the key of the function whose body opens at the given
// position, as PlanFunc.Key and the site table's "func" sites give it.
func FuncKey(file string, line, col int) string {
	return file + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col)
}

// SiteKey returns the key of the function of a "func" site.
func SiteKey(s *trace.Site) string { return FuncKey(s.File, s.Line, s.Col) }

// index is a Plan prepared for lookups.
type index struct {
	byKey    map[string]*PlanFunc
	children map[string][]string // caller key -> keys of the opt2 functions inheriting from it
}

func (p *Plan) index() *index {
	ix := &index{byKey: make(map[string]*PlanFunc), children: make(map[string][]string)}
	if p == nil {
		return ix
	}
	for i := range p.Funcs {
		f := &p.Funcs[i]
		ix.byKey[f.Key] = f
		if f.Skip == "opt2" {
			for _, c := range f.Inherits {
				if !slices.Contains(ix.children[c], f.Key) {
					ix.children[c] = append(ix.children[c], f.Key)
				}
			}
		}
	}
	return ix
}

// descendants returns key and the functions that inherit from it, through
// any chain of inheritance, sorted.
func (ix *index) descendants(key string) []string {
	out := []string{key}
	seen := map[string]bool{key: true}
	for i := 0; i < len(out); i++ {
		for _, c := range ix.children[out[i]] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	return out
}
