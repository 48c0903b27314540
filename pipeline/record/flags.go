package record

import (
	"flag"
	"fmt"
	"regexp"
	"time"
)

// GoTestFlags holds the go test flags that record accepts, split by where
// they go: build flags to "go test -c", test flags to every test binary.
type GoTestFlags struct {
	Build []string // for "go test -c": -tags, -gcflags, -ldflags, -mod, -trimpath
	Test  []string // for each test binary, as -test.X: -short, -v, -parallel, -cpu, -failfast, -shuffle
	Run   string   // -run: which tests to record (a top-level test per trace)
	Skip  string   // -skip
	// Timeout bounds one test's process, as go test's -timeout bounds a
	// package's: the binary panics with "test timed out" after it, and
	// record kills it a little later if it is still running.
	Timeout time.Duration
	Args    []string // after -args: passed to every test binary unchanged
}

// DefineGoTestFlags defines on fs the go test flags that record passes on,
// and the ones it refuses with a reason, so that "-h" lists them and a
// refused flag gets its own error rather than "flag provided but not
// defined".
func DefineGoTestFlags(fs *flag.FlagSet) *GoTestFlags {
	return DefineGoTestFlagsFor(fs, "record")
}

// DefineGoTestFlagsFor is DefineGoTestFlags for the precog command cmd
// ("record" or "test"), which the refusals name.
func DefineGoTestFlagsFor(fs *flag.FlagSet, cmd string) *GoTestFlags {
	g := &GoTestFlags{Timeout: 10 * time.Minute}
	if cmd != "record" {
		cmd = "precog " + cmd
	}
	build := func(name, usage string) {
		fs.Func(name, usage, func(v string) error {
			g.Build = append(g.Build, "-"+name+"="+v)
			return nil
		})
	}
	build("tags", "go test: comma-separated `list` of build tags")
	build("gcflags", "go test: `flags` for the compiler")
	build("ldflags", "go test: `flags` for the linker")
	build("mod", "go test: module download `mode` (readonly or mod; vendoring is not supported)")
	fs.BoolFunc("trimpath", "go test: remove file system paths from the test binaries", func(v string) error {
		g.Build = append(g.Build, "-trimpath="+v)
		return nil
	})

	testFlag := func(name, usage string, isBool bool) {
		set := func(v string) error {
			g.Test = append(g.Test, "-test."+name+"="+v)
			return nil
		}
		if isBool {
			fs.BoolFunc(name, usage, set)
		} else {
			fs.Func(name, usage, set)
		}
	}
	testFlag("short", "go test: tell long-running tests to shorten their run time", true)
	testFlag("v", "go test: print the tests' verbose output (on stderr, after the progress line)", true)
	testFlag("failfast", "go test: stop a test's subtests after the first failure", true)
	testFlag("parallel", "go test: run at most `n` parallel subtests at once", false)
	testFlag("cpu", "go test: a `list` of GOMAXPROCS values to run each test with", false)
	testFlag("shuffle", "go test: randomize the order of subtests (`off`, on, or a seed)", false)
	fs.StringVar(&g.Run, "run", "", "go test: record only the tests matching `regexp`")
	fs.StringVar(&g.Skip, "skip", "", "go test: do not record the tests matching `regexp`")
	fs.DurationVar(&g.Timeout, "timeout", g.Timeout, "go test: fail a test that runs longer than `d` (one test per process; 0: no limit, except for forced runs)")

	refuse := func(name, why string, isBool bool) {
		err := func(string) error { return fmt.Errorf("%s", why) }
		if isBool {
			fs.BoolFunc(name, "refused: "+why, err)
		} else {
			fs.Func(name, "refused: "+why, err)
		}
	}
	const coverWhy = "coverage is not supported: go test -cover ignores the overlay that holds the instrumented files, so nothing would be recorded"
	refuse("cover", coverWhy, true)
	refuse("covermode", coverWhy, false)
	refuse("coverpkg", coverWhy, false)
	refuse("coverprofile", coverWhy, false)
	refuse("race", cmd+" and -race instrument the same accesses and would slow each other down; run go test -race separately", true)
	countWhy := "record runs each test once, one process per test; repeat the record command for more runs"
	if cmd != "record" {
		countWhy = cmd + " runs each test in a process of its own, once per run; use -runs N for more runs"
	}
	refuse("count", countWhy, false)
	refuse("bench", cmd+" runs tests, not benchmarks", false)
	refuse("fuzz", cmd+" runs a fuzz test's seed corpus only; fuzzing is not supported", false)
	refuse("modfile", cmd+" overlays the module's go.mod to add the shim; an alternate go.mod is not supported", false)
	refuse("overlay", cmd+" builds with its own overlay; it cannot be combined with another", false)
	refuse("toolexec", cmd+" builds with an overlay; -toolexec is not supported", false)
	return g
}

// Verbose reports whether -v was given: the tests' output is then shown.
func (g *GoTestFlags) Verbose() bool {
	for _, f := range g.Test {
		if f == "-test.v=true" {
			return true
		}
	}
	return false
}

// SplitArgs separates the packages from what follows -args.
func SplitArgs(args []string) (pkgs, testArgs []string) {
	for i, a := range args {
		if a == "-args" || a == "--args" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// topLevel splits a go test -run or -skip pattern into the part that
// selects top-level tests and the rest, which selects subtests. Like go test,
// it splits at the first slash outside brackets and parentheses.
func topLevel(pattern string) (top, sub string) {
	depth := 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++ // an escaped character never splits
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case '/':
			if depth == 0 {
				return pattern[:i], pattern[i+1:]
			}
		}
	}
	return pattern, ""
}

// runPattern is the -test.run value that selects exactly the top-level
// test name and, below it, the user's subtest pattern.
func runPattern(name, sub string) string {
	p := "^" + regexp.QuoteMeta(name) + "$"
	if sub != "" {
		p += "/" + sub
	}
	return p
}

// Bound is the -timeout of a run that must end within bound (a forced
// run): the smaller of the two, bound if -timeout is 0 (no limit).
func (f *GoTestFlags) Bound(bound time.Duration) time.Duration {
	if f.Timeout <= 0 {
		return bound
	}
	return min(f.Timeout, bound)
}

// ForcedBound is the -timeout of a forced or replayed run of a test whose
// unforced run took wall, under a plan that may hold goroutines back for
// budget in all: three times the recorded time, the plan's waits and some
// slack, within -timeout (Bound). The test's own -timeout fires before
// any outer kill, so that a hang prints every goroutine.
func (f *GoTestFlags) ForcedBound(wall, budget time.Duration) time.Duration {
	return f.Bound(3*wall + budget + 5*time.Second)
}
