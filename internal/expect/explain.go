package expect

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// An Explain is a parsed explain file: the root cause precog explain must
// give for one failing test of a kernel.
type Explain struct {
	Test string // the test to explain, TestX
	// Failing is how the test fails: Natural (as written) or
	// PredictedFailure (only under an interleaving precog predicts).
	Failing string
	Kind    string // the root cause's kind: Race, Atomicity, Order, Definition or None
	// Sites are the root cause's sites as file:line, the file relative to
	// the package, in the file's order: for a race or a violation the site
	// whose order matters most first, then the other, or two others either
	// of which is right (see Check); one site for a definition; none for
	// None.
	Sites []string
	// Timeout is precog explain's -timeout for the test (a kernel that
	// hangs: every hanging run lasts that long); 0 for the default.
	Timeout time.Duration
}

// How an explain file says its test fails.
const (
	Natural          = "natural"
	PredictedFailure = "predicted"
)

// The root-cause kinds of an explain file.
const (
	Race       = "race"
	Atomicity  = "atomicity"
	Order      = "order"
	Definition = "definition"
	None       = "none"
)

// ReadExplain reads and parses the explain file at path.
func ReadExplain(path string) (Explain, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Explain{}, err
	}
	x, err := ParseExplain(data)
	if err != nil {
		return Explain{}, fmt.Errorf("%s: %w", path, err)
	}
	return x, nil
}

// ParseExplain parses an explain file.
func ParseExplain(data []byte) (Explain, error) {
	var x Explain
	seen := make(map[string]int)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if prev, dup := seen[f[0]]; dup {
			return Explain{}, fmt.Errorf("line %d: a second %s line (the first is line %d)", n, f[0], prev)
		}
		seen[f[0]] = n
		switch f[0] {
		case "test":
			if len(f) != 2 || !strings.HasPrefix(f[1], "Test") {
				return Explain{}, fmt.Errorf("line %d: want test TestName", n)
			}
			x.Test = f[1]
		case "failing":
			if len(f) != 2 || (f[1] != Natural && f[1] != PredictedFailure) {
				return Explain{}, fmt.Errorf("line %d: want failing natural or failing predicted", n)
			}
			x.Failing = f[1]
		case "root":
			if len(f) < 2 {
				return Explain{}, fmt.Errorf("line %d: want root KIND SITES", n)
			}
			x.Kind = f[1]
			want := 0
			switch x.Kind {
			case Race, Atomicity, Order:
				// The root, then the other access, or two others either
				// of which a right report may name.
				want = min(max(len(f)-2, 2), 3)
			case Definition:
				want = 1
			case None:
			default:
				return Explain{}, fmt.Errorf("line %d: unknown root kind %q", n, x.Kind)
			}
			if len(f)-2 != want {
				return Explain{}, fmt.Errorf("line %d: root %s wants %d sites, has %d", n, x.Kind, want, len(f)-2)
			}
			for _, s := range f[2:] {
				file, l, ok := strings.Cut(s, ":")
				ln, err := strconv.Atoi(l)
				if !ok || file == "" || err != nil || ln < 1 {
					return Explain{}, fmt.Errorf("line %d: site %q is not file:line", n, s)
				}
				x.Sites = append(x.Sites, filepath.ToSlash(filepath.Clean(file))+":"+strconv.Itoa(ln))
			}
		case "timeout":
			d, err := time.ParseDuration(strings.Join(f[1:], ""))
			if len(f) != 2 || err != nil || d <= 0 {
				return Explain{}, fmt.Errorf("line %d: want timeout D, a positive duration", n)
			}
			x.Timeout = d
		default:
			return Explain{}, fmt.Errorf("line %d: unknown item %q", n, f[0])
		}
	}
	if err := sc.Err(); err != nil {
		return Explain{}, err
	}
	for _, item := range []string{"test", "failing", "root"} {
		if _, ok := seen[item]; !ok {
			return Explain{}, fmt.Errorf("no %s line", item)
		}
	}
	return x, nil
}

// Check compares a root cause precog explain reported, for the package in
// directory dir, with x: its kind, its root site (file and line) and its
// sites. The root must be x's first site. For a race or a violation the
// reported sites other than the root (listing the root again is fine) must
// be one or more of x's other sites: with two sites, exactly the other one;
// with three, either or both (a race one of whose two harmful pairs may be
// reported, the local pair of an atomicity violation, the accesses an order
// violation may be paired with). For None nothing may be reported. It
// returns nil if they agree, or an error saying how they differ.
func (x Explain) Check(dir, kind string, root *SiteRef, sites []SiteRef) error {
	if kind != x.Kind {
		return fmt.Errorf("root cause kind %s, want %s", kind, x.Kind)
	}
	if x.Kind == None {
		if root != nil {
			return fmt.Errorf("root cause %s reported, want none", root.Rel(dir))
		}
		return nil
	}
	if root == nil {
		return fmt.Errorf("no root site, want %s", x.Sites[0])
	}
	if got := root.Rel(dir); got != x.Sites[0] {
		return fmt.Errorf("root site %s, want %s", got, x.Sites[0])
	}
	if x.Kind == Definition {
		return nil
	}
	// The reported sites other than the root (a same-line race may list
	// the root's line once or twice) must be some of the expected others.
	others := x.Sites[1:]
	var got []string
	for _, s := range sites {
		if r := s.Rel(dir); r != x.Sites[0] || slices.Contains(others, r) {
			got = append(got, r)
		}
	}
	slices.Sort(got)
	got = slices.Compact(got)
	if len(got) == 0 || slices.ContainsFunc(got, func(s string) bool { return !slices.Contains(others, s) }) {
		want := slices.Clone(others)
		slices.Sort(want)
		return fmt.Errorf("sites %s beside the root, want %s", strings.Join(got, " "), strings.Join(slices.Compact(want), " or "))
	}
	return nil
}

// A SiteRef is a reported source position.
type SiteRef struct {
	File string
	Line int
}

// Rel is s as an explain file writes it, for the package in directory dir:
// file:line with the file relative to dir if it is under it, absolute
// otherwise (and so matching no expected site).
func (s SiteRef) Rel(dir string) string {
	file := s.File
	if rel, err := filepath.Rel(dir, file); err == nil && filepath.IsLocal(rel) {
		file = rel
	}
	return filepath.ToSlash(file) + ":" + strconv.Itoa(s.Line)
}
