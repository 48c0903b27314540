package instrument

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestParseDepsPattern checks that -instrument-deps takes import paths of
// dependencies (and all), and refuses relative or absolute paths, a "..."
// inside a path, and the standard library, which is never instrumented,
// with a message that says so.
func TestParseDepsPattern(t *testing.T) {
	for _, ok := range []string{"", "all", "github.com/tidwall/lotsa", "gopkg.in/tomb.v1,golang.org/x/sync/..."} {
		if _, err := parseDepsPattern(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for in, want := range map[string]string{
		"./dep":                     "want import paths",
		"github.com/a/.../b":        "want import paths",
		"net/http":                  "standard library",
		"golang.org/x/sync,net/...": "standard library",
		"std":                       "standard library",
	} {
		_, err := parseDepsPattern(in)
		if _, ok := errors.AsType[*PatternError](err); !ok || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want a PatternError that says %q", in, err, want)
		}
	}
}

// TestDepsUnmatched: an -instrument-deps element that matches no package
// of the build (the packages under test and their imports) is a
// PatternError naming it, with the build's dependency modules whose last
// element is one of its path elements after the host as suggestions (a
// fork, a package mistyped below its module's root; never the main
// module); elements that match, and all, are not.
func TestDepsUnmatched(t *testing.T) {
	goproxy := &packages.Package{PkgPath: "github.com/stripe/goproxy", Module: &packages.Module{Path: "github.com/stripe/goproxy"}}
	auth := &packages.Package{PkgPath: "github.com/stripe/goproxy/ext/auth", Module: goproxy.Module,
		Imports: map[string]*packages.Package{"github.com/stripe/goproxy": goproxy}}
	root := &packages.Package{PkgPath: "example.com/smokescreen", Module: &packages.Module{Path: "example.com/smokescreen", Main: true},
		Imports: map[string]*packages.Package{"github.com/stripe/goproxy/ext/auth": auth, "net/http": {PkgPath: "net/http"}}}
	pkgs := []*packages.Package{root}
	for _, ok := range []string{"", "all", "github.com/stripe/goproxy", "github.com/stripe/goproxy/...", "github.com/stripe/goproxy/ext/...,example.com/smokescreen"} {
		d, err := parseDepsPattern(ok)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.unmatched(pkgs); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for in, want := range map[string]string{
		"github.com/elazarl/goproxy/...":                                `-instrument-deps pattern "github.com/elazarl/goproxy/..." matches no package that the packages under test build with (did you mean github.com/stripe/goproxy/...?)`,
		"github.com/stripe/goproxy,github.com/elazarl/goproxy/ext/auth": `-instrument-deps pattern "github.com/elazarl/goproxy/ext/auth" matches no package that the packages under test build with (did you mean github.com/stripe/goproxy/...?)`,
		"github.com/stripe/goproxy/ext":                                 `-instrument-deps pattern "github.com/stripe/goproxy/ext" matches no package that the packages under test build with (did you mean github.com/stripe/goproxy/...?)`,
		"example.com/nosuchdep":                                         `-instrument-deps pattern "example.com/nosuchdep" matches no package that the packages under test build with`,
		"example.org/fork/smokescreen":                                  `-instrument-deps pattern "example.org/fork/smokescreen" matches no package that the packages under test build with`,
		"example.org/goproxy/auth":                                      `-instrument-deps pattern "example.org/goproxy/auth" matches no package that the packages under test build with (did you mean github.com/stripe/goproxy/...?)`,
	} {
		d, err := parseDepsPattern(in)
		if err != nil {
			t.Fatal(err)
		}
		err = d.unmatched(pkgs)
		if _, ok := errors.AsType[*PatternError](err); !ok || err.Error() != want {
			t.Errorf("%q: error %v, want the PatternError %q", in, err, want)
		}
	}
}

// TestRunners: the packages of a test runner that runs a test's steps on
// goroutines of its own (Ginkgo v2's internal packages) are instrumented
// without -instrument-deps; the runner's other packages, and Ginkgo v1's,
// are not.
func TestRunners(t *testing.T) {
	mod := &moduleInfo{GoMod: "/m/go.mod"}
	ginkgo := &packages.Module{Path: "github.com/onsi/ginkgo/v2"}
	for path, want := range map[string]bool{
		"github.com/onsi/ginkgo/v2/internal":                  true,
		"github.com/onsi/ginkgo/v2/internal/parallel_support": true,
		"github.com/onsi/ginkgo/v2":                           false,
		"github.com/onsi/ginkgo/v2/types":                     false,
		"github.com/onsi/ginkgo/internal/leafnodes":           false,
		"github.com/onsi/ginkgo/v2/internalx":                 false,
	} {
		p := &packages.Package{PkgPath: path, Module: ginkgo}
		if got := wanted(p, nil, mod, nil); got != want {
			t.Errorf("%s: instrumented %v, want %v", path, got, want)
		}
	}
}
