package fixturetest

import (
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"text/scanner"

	"golang.org/x/tools/go/analysis/checker"
)

// An expectation is one of a // want comment's: a diagnostic matching rx,
// or a fact of the object name ("package" for the package) matching rx.
type expectation struct {
	fact bool
	name string
	rx   *regexp.Regexp
}

// check reports to t each diagnostic and fact of act that no // want
// comment of its line expects, and each expectation nothing matched: the
// syntax and the messages of analysistest's check (whose checker is not
// exported). A fact is matched against its fmt.Sprint, a package fact
// against that of its checker.PackageFact, as there.
func check(t *testing.T, dir string, act *checker.Action) {
	t.Helper()
	type line struct {
		file string
		line int
	}
	want := map[line][]expectation{}
	pkg := act.Package
	for _, f := range pkg.Syntax {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				text := strings.TrimPrefix(c.Text, "//")
				if text == c.Text {
					text = strings.TrimSuffix(strings.TrimPrefix(text, "/*"), "*/")
				}
				if i := strings.Index(text, "// want"); i >= 0 { // a want comment in a comment
					text = text[i+len("// "):]
				}
				rest, ok := strings.CutPrefix(strings.TrimSpace(text), "want")
				if !ok {
					continue
				}
				posn := pkg.Fset.Position(c.Pos()) // per comment: //line directives move it
				file := sanitize(dir, posn.Filename)
				delta, exps, err := parse(rest)
				if err != nil {
					t.Errorf("%s:%d: in 'want' comment: %s", file, posn.Line, err)
					continue
				}
				if exps != nil {
					want[line{file, posn.Line + delta}] = exps
				}
			}
		}
	}
	if len(pkg.OtherFiles) > 0 {
		t.Errorf("%s: the want comments of its non-Go files %v are not read", pkg.PkgPath, pkg.OtherFiles)
	}

	match := func(posn token.Position, fact bool, name, message string) {
		posn.Filename = sanitize(dir, posn.Filename)
		k := line{posn.Filename, posn.Line}
		kind := "diagnostic"
		if fact {
			kind = "fact"
		}
		var unmatched []string
		for i, exp := range want[k] {
			if exp.fact != fact || exp.name != name {
				continue
			}
			if exp.rx.MatchString(message) {
				want[k] = append(want[k][:i:i], want[k][i+1:]...)
				return
			}
			unmatched = append(unmatched, fmt.Sprintf("%#q", exp.rx))
		}
		if unmatched == nil {
			t.Errorf("%v: unexpected %s: %v", posn, kind, message)
		} else {
			t.Errorf("%v: %s %q does not match pattern %s", posn, kind, message, strings.Join(unmatched, " or "))
		}
	}
	for _, d := range act.Diagnostics {
		match(pkg.Fset.Position(d.Pos), false, "", d.Message)
	}
	for _, f := range act.AllPackageFacts() {
		if f.Package == pkg.Types {
			posn := pkg.Fset.Position(pkg.Syntax[0].Pos())
			posn.Line, posn.Column = 1, 1
			match(posn, true, "package", fmt.Sprint(f))
		}
	}
	facts := act.AllObjectFacts()
	sort.Slice(facts, func(i, j int) bool { return facts[i].Object.Pos() < facts[j].Object.Pos() })
	for _, f := range facts {
		if f.Object.Pkg() == pkg.Types {
			match(pkg.Fset.Position(f.Object.Pos()), true, f.Object.Name(), fmt.Sprint(f.Fact))
		}
	}

	var surplus []string
	for k, exps := range want {
		for _, exp := range exps {
			kind := "diagnostic"
			if exp.fact {
				kind = "fact"
			}
			surplus = append(surplus, fmt.Sprintf("%s:%d: no %s was reported matching %#q", k.file, k.line, kind, exp.rx))
		}
	}
	sort.Strings(surplus)
	for _, s := range surplus {
		t.Errorf("%s", s)
	}
}

// parse parses the text of a // want comment after "want": an optional
// +N (the expectations are of the line N below), then quoted regexps of
// diagnostics and name:"regexp" facts.
func parse(text string) (delta int, exps []expectation, err error) {
	var scanErr string
	sc := new(scanner.Scanner).Init(strings.NewReader(text))
	sc.Error = func(_ *scanner.Scanner, msg string) { scanErr = msg }
	sc.Mode = scanner.ScanIdents | scanner.ScanStrings | scanner.ScanRawStrings | scanner.ScanInts
	rx := func(tok rune) (*regexp.Regexp, error) {
		if tok != scanner.String && tok != scanner.RawString {
			return nil, fmt.Errorf("got %s, want regular expression", scanner.TokenString(tok))
		}
		pattern, _ := strconv.Unquote(sc.TokenText()) // the scanner checked the quoting
		return regexp.Compile(pattern)
	}
	for {
		switch tok := sc.Scan(); tok {
		case '+':
			if tok = sc.Scan(); tok != scanner.Int {
				return 0, nil, fmt.Errorf("got +%s, want +Int", scanner.TokenString(tok))
			}
			delta, _ = strconv.Atoi(sc.TokenText())
		case scanner.String, scanner.RawString:
			r, err := rx(tok)
			if err != nil {
				return 0, nil, err
			}
			exps = append(exps, expectation{rx: r})
		case scanner.Ident:
			name := sc.TokenText()
			if tok = sc.Scan(); tok != ':' {
				return 0, nil, fmt.Errorf("got %s after %s, want ':'", scanner.TokenString(tok), name)
			}
			r, err := rx(sc.Scan())
			if err != nil {
				return 0, nil, err
			}
			exps = append(exps, expectation{fact: true, name: name, rx: r})
		case scanner.EOF:
			if scanErr != "" {
				return 0, nil, fmt.Errorf("%s", scanErr)
			}
			return delta, exps, nil
		default:
			return 0, nil, fmt.Errorf("unexpected %s", scanner.TokenString(tok))
		}
	}
}

// sanitize returns filename relative to the GOPATH tree dir's src.
func sanitize(dir, filename string) string {
	return filepath.ToSlash(strings.TrimPrefix(filename, dir+string(os.PathSeparator)+"src"+string(os.PathSeparator)))
}
