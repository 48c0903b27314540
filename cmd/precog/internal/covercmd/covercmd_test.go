package covercmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/precog-dev/precog/detect/cfp"
	"github.com/precog-dev/precog/internal/headless"
	"github.com/precog-dev/precog/internal/testcache"
	"github.com/precog-dev/precog/pipeline/coverage"
	"github.com/precog-dev/precog/pipeline/instrument"
	"github.com/precog-dev/precog/pipeline/record"
)

// corpus is the CFP corpus (testdata/cfp/README.md).
var corpus, _ = filepath.Abs(filepath.Join("..", "..", "..", "..", "testdata", "cfp"))

// measured is the corpus's coverage, measured once for the tests here.
var measured struct {
	once sync.Once
	rep  *coverage.Report
	err  error
}

func measure(t *testing.T) *coverage.Report {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the CFP corpus (about 20 s)")
	}
	measured.once.Do(func() {
		measured.rep, measured.err = coverage.Measure(t.Context(), coverage.Options{
			Dir: corpus, Patterns: []string{"./..."}, Flags: &record.GoTestFlags{Timeout: 60e9},
			CacheDir: testcache.Dir(), CFP: instrument.AllCFP,
		})
	})
	if measured.err != nil {
		t.Fatal(measured.err)
	}
	return measured.rep
}

// TestCorpus checks each package's cover file (testdata/cfp/README.md)
// against what precog cover measures.
func TestCorpus(t *testing.T) {
	rep := measure(t)
	for _, p := range rep.Packages {
		pkg := strings.TrimPrefix(p.ImportPath, "precog.example/cfp/")
		t.Run(pkg, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(corpus, pkg, "cover"))
			if err != nil {
				t.Fatal(err)
			}
			checkCover(t, rep, p, data)
		})
	}
}

func checkCover(t *testing.T, rep *coverage.Report, p *coverage.Package, data []byte) {
	short := func(k string) string { return shortName(p.Names[k], p.ImportPath) }
	pairName := func(pr cfp.Pair) string {
		a, b := short(pr.A), short(pr.B)
		if b < a {
			a, b = b, a
		}
		return a + " " + b
	}
	want := func(f []string) string {
		a, b := f[0], f[1]
		if b < a {
			a, b = b, a
		}
		return a + " " + b
	}
	steps := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == "pair" && len(f) == 4:
			var got []string
			for _, tt := range p.Tests {
				if tt.Name == f[1] {
					for _, pr := range tt.Pairs {
						got = append(got, pairName(pr))
					}
				}
			}
			if !slices.Contains(got, want(f[2:])) {
				t.Errorf("cover line %d: %s does not cover {%s}; it covers %q", n, f[1], want(f[2:]), got)
			}
		case f[0] == "nopair" && len(f) == 3:
			for _, tt := range p.Tests {
				for _, pr := range tt.Pairs {
					if pairName(pr) == want(f[1:]) {
						t.Errorf("cover line %d: %s covers {%s}", n, tt.Name, want(f[1:]))
					}
				}
			}
		case f[0] == "skip" && len(f) == 3:
			found := false
			for _, pf := range rep.Plan.Funcs {
				if shortName(pf.Name, p.ImportPath) == f[1] {
					found = true
					if pf.Skip != f[2] {
						t.Errorf("cover line %d: %s is planned %q, want %q", n, f[1], pf.Skip, f[2])
					}
				}
			}
			if !found {
				t.Errorf("cover line %d: no function %s in the plan", n, f[1])
			}
		case f[0] == "select" && len(f) >= 2:
			if steps >= len(p.Steps) {
				t.Errorf("cover line %d: only %d tests selected", n, len(p.Steps))
				break
			}
			s := p.Steps[steps]
			steps++
			var fns []string
			for _, k := range s.Funcs {
				fns = append(fns, short(k))
			}
			slices.Sort(fns)
			wantFns := slices.Sorted(slices.Values(f[2:]))
			if s.Test != f[1] || !slices.Equal(fns, wantFns) {
				t.Errorf("cover line %d: selection step %d is %s with %v, want %s with %v", n, steps, s.Test, fns, f[1], wantFns)
			}
		default:
			t.Errorf("cover line %d: cannot parse %q", n, sc.Text())
		}
	}
	if steps > 0 && steps != len(p.Steps) {
		t.Errorf("%d tests selected, the cover file lists %d", len(p.Steps), steps)
	}
}

// TestJSON checks -json: one object per test, whose selected tests and
// their new pairs add up to the package's pairs.
func TestJSON(t *testing.T) {
	rep := measure(t)
	var buf bytes.Buffer
	if err := writeJSON(&buf, newView(rep)); err != nil {
		t.Fatal(err)
	}
	newPairs := make(map[string]int)
	tests := 0
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var o jsonTest
		if err := dec.Decode(&o); err != nil {
			t.Fatal(err)
		}
		tests++
		if o.Test == "" || o.Package == "" || o.Pairs < o.New || o.Selected != (o.Order > 0) || (o.Selected && o.New == 0) {
			t.Errorf("inconsistent object %+v", o)
		}
		newPairs[o.Package] += o.New
	}
	want := 0
	for _, p := range rep.Packages {
		want += len(p.Tests)
		if newPairs[p.ImportPath] != len(p.Union) {
			t.Errorf("%s: the selected tests add %d pairs, the package has %d", p.ImportPath, newPairs[p.ImportPath], len(p.Union))
		}
	}
	if tests != want {
		t.Errorf("%d objects, want one per test (%d)", tests, want)
	}
}

// TestHTMLInBrowser renders the corpus's page in headless Chromium and
// checks what it shows: the first package's matrix has one green cell
// per ordered covered pair, each cell's tooltip names the tests that
// cover the pair, the other packages are hidden, and the screenshot
// shows the matrix's green and the uncovered source's red.
func TestHTMLInBrowser(t *testing.T) {
	bin := headless.Browser(t)
	rep := measure(t)
	v := newView(rep)
	page := filepath.Join(t.TempDir(), "cover.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeHTML(f, v, readSource); err != nil {
		t.Fatal(err)
	}
	f.Close()

	dom := headless.DOM(t, bin, page)
	first := v.Packages[0]
	section := regexp.MustCompile(`(?s)<section class="pkg" id="pkg0">.*?</section>`).FindString(dom)
	if section == "" {
		t.Fatalf("no visible first package in the DOM:\n%.2000s", dom)
	}
	if n := strings.Count(dom, `<section class="pkg hidden"`); n != len(v.Packages)-1 {
		t.Errorf("%d hidden packages, want %d", n, len(v.Packages)-1)
	}
	cells := regexp.MustCompile(`<td class="pair" title="[^"]*" data-tip="[^"]*" data-tests="([^"]*)">`).FindAllStringSubmatch(section, -1)
	want := 0
	tips := make(map[string]bool)
	for pr, tests := range first.pairTests {
		want += 2
		if pr.A == pr.B {
			want--
		}
		tips[strings.Join(tests, ", ")] = true
	}
	if len(cells) != want {
		t.Errorf("%s: %d covered cells in the matrix, want %d", first.ImportPath, len(cells), want)
	}
	for _, c := range cells {
		if !tips[c[1]] {
			t.Errorf("a cell's tests %q are not those of any pair", c[1])
		}
	}

	img := headless.Screenshot(t, bin, page, 1280, 1400, os.Getenv("PRECOG_COVER_SCREENSHOT"))
	green := headless.Count(img, 0x2da44e) // a covered cell
	red := headless.Count(img, 0xffebe9)   // an uncovered source line
	// A matrix cell is 18 pixels square.
	if green < len(cells)*16*16 {
		t.Errorf("screenshot: %d green pixels, want at least %d for %d covered cells", green, len(cells)*16*16, len(cells))
	}
	if len(first.Uncovered) > 0 && red == 0 {
		t.Errorf("screenshot: no red source lines, but %d uncovered functions", len(first.Uncovered))
	}
}
