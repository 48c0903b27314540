// Package vetcmd implements "precog vet": it loads packages with
// go/packages, runs precog's checks on them with go/analysis/checker, and
// reports the findings as text, JSON lines or SARIF 2.1.0.
//
// The same analyzers also run under "go vet -vettool=precog" through
// unitchecker; this driver exists for what go vet cannot give: one sorted
// report for many packages, SARIF for code-scanning services, and an exit
// status that tells findings (3) from failures (1).
package vetcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/precog-dev/precog/analyzers/suite"
	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/report"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/sarif"
	"github.com/precog-dev/precog/pipeline/instrument"
	"github.com/precog-dev/precog/pipeline/static"
	"golang.org/x/tools/go/analysis"
)

const doc = `Vet loads the named packages, with their tests unless -test=false, and
reports the concurrency bugs that precog's checks find in them, without
running anything. Packages are named as for go vet; with none, vet checks the
package in the current directory.

Checks are chosen as go vet chooses analyzers: if any check flag is set to
true, only those checks run; otherwise every check runs except those set to
false (for example -connull=false).

Output

Each finding is one line on stdout, followed by one indented line for each
piece of evidence (the other access, the go statement that makes the two
concurrent, ...):

	file:line:col: message [check-id]
		file:line:col: evidence

File names are relative to the current directory when they are under it.
Findings are sorted by file, line, column, check ID and message.

Under "go vet -vettool=precog", go vet prints the findings in its own
format, as it does its own analyzers', without the [check-id]: that is
go vet's convention, kept so that tools reading go vet's output see what
they expect. "go vet -vettool=precog -json" files each finding under its
analyzer's name, the check ID without the dash (connull for con-null).

With -json, each finding is instead one JSON object on a line of its own
(JSON Lines), in the same order, in the shape precog test prints:

	{"id":"8573f055fa58","kind":"con-null","status":"static","message":"...",
	 "sites":[{"file":"/abs/p/p.go","line":12,"col":5,"endLine":12,"endCol":11},
	          {"file":"/abs/p/p.go","line":12,"col":7,"role":"deref"},...],
	 "evidence":{},"tests":[],"reports":1,
	 "related":[{"file":"/abs/p/p.go","line":30,"col":2,"message":"..."}],
	 "analyzer":"connull","package":"example.com/p","url":"..."}

(on one line). File names are absolute. The first site is where the
finding is reported; the sites after it are the bug's sites in their roles,
from which the ID is computed: precog test gives the runtime finding of the
same bug the same ID.

With -sarif FILE, vet also writes a SARIF 2.1.0 log to FILE, or to stdout in
place of the findings if FILE is "-". It has one rule per check, paths
relative to the main module's root ("%SRCROOT%"), columns in UTF-16 code
units, evidence as related locations, and each finding's ID as its partial
fingerprint "precogId/v1".

With -html FILE, vet also writes an HTML report to FILE: one self-contained
page (no script, nothing fetched) with each finding, its sites in their
source, and a picture of the order between its sites that the check warns
of. Nothing ran, so the picture puts each site on a goroutine of its own.

Confidence

A finding that holds only under an assumption the analysis cannot check is
of low confidence, and is shown only with -all (or a check's own
-CHECK.all), its message ending in "(low confidence: it assumes ...)" with
the assumption. Each assumption is about when a test, or an importer calling
the package, does something, which it decides and the analysis cannot see.
Five make a finding of low confidence: both of its sides run on goroutines
of one HTTP handler written in a _test.go file, which a server would run
once per request, but which a test calls as often as it sends requests,
usually once; one side is code written in a _test.go file and the other is
not (test code installing a hook or inspecting the package's state while the
package's goroutines run); both sides hold a common lock wherever the
package's own code calls them, and only a test's call without it leaves one
unlocked (a test calling a helper of the package while the package's
goroutines run); the sides are ordered by a sync.Once except through
functions written in _test.go files (a test export bypassing the Once); the
sides are ordered by a sync.Once once every start of a goroutine reached
from code calling into the package counts as after the Do, where one path of
calls to that start does run the Do first (an importer calling the exported
functions in an order that starts the goroutine before anything ran the Do:
a transport dialing again when a connection closes, before any round trip).
A sixth is about the package's own control flow where the analysis cannot
follow it: both sides run on goroutines started at one go statement, which
may run several at once as far as the analysis sees, but each of which
defers Done on a WaitGroup that the code starting the next one waits on, on
some path of calls to the start (a reconnect loop that waits for the old
reader before it starts a new one, on one path; another skips the Wait
behind a flag): the finding needs two of them to run at once.
Every other finding is confident: it rests only on the checks' documented
model (each check's documentation says what it assumes and what it cannot
see). The same rule holds under go vet -vettool=precog, where go vet's own
-all is taken (it is a deprecated flag of go vet's that does nothing): give
each check's flag, -connull.all -conuninit.all -conclosed.all -conindex.all
-conmap.all; and in the golangci-lint plugin, with the setting all: true.

Internal errors

A check that panics on a package is reported as one finding with the check ID
"internal-error" whose message holds the stack; the other checks' findings
still appear. SARIF logs them as tool execution notifications instead of
results. They are precog bugs: please report them.

Errors

A package that cannot be loaded or type-checked is reported as one line on
stderr naming its first error, and is not checked; the other packages are,
and a last line says how many of the packages matched were checked.
A package whose tests do not type-check is not checked either, its own
code included (its test variant holds both); the line says so, and
-test=false checks it without them.

Exit status

	0  no findings (notes of analyses stopped at a budget, kind limit,
	   are printed but do not count)
	3  findings, including when internal errors came with them
	2  a bad command line: an unknown flag or a flag value it does not
	   take (as the go command)
	1  an error: a bad argument, no package matched, a package that
	   did not load or type-check, a check that returned an error, or
	   internal errors and no findings

An error takes precedence over findings: when some packages did not load,
vet still reports the findings in the others but exits with status 1.

Memory

Vet analyses a package at a time, in dependency order, on as many workers
as GOMAXPROCS, and keeps of each package only what the packages still to
come need. It runs under a soft memory limit of 1 GiB (GOMEMLIMIT sets
another): past half of it, it starts no package beside one in progress.
On a terminal a progress line names the packages as they are done; in a
log, a plain "progress at" line every 30s does.

Cache

The checks need facts about every package the checked ones import, the
standard library included, so each of those packages is analysed too. What
its importers need of it (its types and facts) is kept in precog's cache
directory (-cache; the one precog test uses), named by a hash of the
package's files, its dependencies' and precog's own executable, and the next
vet reads it instead of analysing the package again: on the second run, a
small module's vet spends its time on its own packages. A changed file is a
new name, so nothing in the cache goes stale; entries unused for five days
are removed. Deleting the directory removes everything vet added.
`

// Command returns the "vet" command running the given check analyzers. ids
// maps each check's analyzer name to its stable ID, the Category of its
// findings, which names it in help and is its SARIF rule ID.
func Command(checks []*analysis.Analyzer, ids map[string]string) *cli.Command {
	return &cli.Command{
		Name:    "vet",
		Args:    "[packages]",
		Summary: "report concurrency bugs found by static analysis",
		Doc:     doc,
		Define: func(fs *flag.FlagSet) cli.Runner {
			o := options{tests: true}
			fs.BoolVar(&o.json, "json", false, "print findings as JSON lines instead of text")
			fs.StringVar(&o.sarif, "sarif", "", "also write a SARIF 2.1.0 log to `file` (\"-\" for stdout, replacing the findings)")
			fs.StringVar(&o.html, "html", "", "also write an HTML report to `file`")
			fs.BoolVar(&o.tests, "test", true, "also check the packages' test files")
			fs.StringVar(&o.tags, "tags", "", "comma-separated `list` of build tags to consider satisfied")
			fs.StringVar(&o.dir, "C", "", "change to `dir` before doing anything else")
			fs.StringVar(&o.cache, "cache", "", "precog's cache `dir` (default: the precog directory in the user cache directory)")
			enabled := defineCheckFlags(fs, checks, ids)
			fs.Var(suite.All(checks), "all", suite.AllUsage)
			// Packages are analyzed at once in this process.
			for name, value := range suite.SharedProcessFlags {
				if f := fs.Lookup(name); f != nil {
					f.DefValue = value
					f.Value.Set(value)
				}
			}
			return func(ctx context.Context, env *cli.Env, patterns []string) (int, error) {
				o.checks, o.ids = selectChecks(checks, enabled), ids
				o.command = cli.CommandLine("vet", append(cli.SetFlags(fs), patterns...))
				return run(ctx, env, o, patterns)
			}
		},
	}
}

type options struct {
	json  bool
	sarif string
	html  string
	// command is the command line, for the HTML report.
	command string
	tests   bool
	tags    string
	dir     string
	cache   string
	checks  []*analysis.Analyzer
	ids     map[string]string
}

// defineCheckFlags defines, for each check, the enable flag -NAME that go vet
// also passes through, and -NAME.FLAG for each of the check's own flags, the
// names unitchecker gives them.
func defineCheckFlags(fs *flag.FlagSet, checks []*analysis.Analyzer, ids map[string]string) map[*analysis.Analyzer]*enableFlag {
	enabled := make(map[*analysis.Analyzer]*enableFlag)
	for _, a := range checks {
		e := new(enableFlag)
		enabled[a] = e
		fs.Var(e, a.Name, fmt.Sprintf("enable the %s check: %s", checkID(a, ids), summary(a)))
		a.Flags.VisitAll(func(f *flag.Flag) {
			fs.Var(f.Value, a.Name+"."+f.Name, f.Usage)
		})
	}
	return enabled
}

// selectChecks applies go vet's rule (suite.Select) to the flags given.
func selectChecks(checks []*analysis.Analyzer, enabled map[*analysis.Analyzer]*enableFlag) []*analysis.Analyzer {
	set := make(map[string]bool)
	for a, e := range enabled {
		if *e != enableUnset {
			set[a.Name] = *e == enableOn
		}
	}
	return suite.Select(checks, set)
}

// checkID returns the stable ID of check a, or its name if ids lacks it.
func checkID(a *analysis.Analyzer, ids map[string]string) string {
	if id, ok := ids[a.Name]; ok {
		return id
	}
	return a.Name
}

// summary returns the first line of an analyzer's Doc.
func summary(a *analysis.Analyzer) string {
	first, _, _ := strings.Cut(a.Doc, "\n")
	return first
}

// An enableFlag is a boolean flag that remembers whether it was set.
type enableFlag int

const (
	enableUnset enableFlag = iota
	enableOn
	enableOff
)

func (e *enableFlag) IsBoolFlag() bool { return true }

func (e *enableFlag) String() string {
	if e != nil && *e == enableOff {
		return "false"
	}
	return "true"
}

func (e *enableFlag) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	*e = enableOff
	if b {
		*e = enableOn
	}
	return nil
}

// memLimit is vet's soft memory limit when GOMEMLIMIT sets none.
const memLimit = 1 << 30

// run is the vet command proper.
func run(ctx context.Context, env *cli.Env, o options, patterns []string) (int, error) {
	start := time.Now()
	dir, err := cli.WorkDir(env.Dir, o.dir)
	if err != nil {
		return cli.ExitError, err
	}
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	// The garbage collector lets the heap grow to twice what is live, and
	// one package's analysis can hold hundreds of MiB: unless GOMEMLIMIT
	// says otherwise, vet collects harder rather than pass memLimit, and
	// analyses a package beside another only while the live heap is
	// under half of it (see static.Program.Analyze).
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(memLimit))
	}
	progress := cli.NewProgress(env.Stderr)
	status := cli.NewStatus(start, "loading the packages")
	// In a CI log, where the line is off, a plain line now and then.
	progress.Every(30*time.Second, status.Line)
	// Without a user cache directory ($HOME and $XDG_CACHE_HOME unset)
	// vet runs without the cache, unless -cache names one.
	cache, err := instrument.CacheDir(o.cache)
	if err != nil && o.cache != "" {
		return cli.ExitError, err
	}
	prog, err := load(ctx, dir, o, patterns)
	if err != nil {
		progress.Clear()
		return cli.ExitError, err
	}
	if cache != "" && static.NeedFacts(o.checks) {
		prog.FactCache = cache
		defer instrument.TrimCache(cache)
	}
	prog.Progress = func(done, total int, running []string) {
		line := fmt.Sprintf("analysed %d of %d packages (with their dependencies)", done, total)
		if len(running) > 0 {
			line += "; analysing " + strings.Join(running, ", ")
		}
		status.Set(line)
		progress.Status(line)
	}
	res, err := analyze(ctx, o.checks, prog)
	progress.Clear()
	if err != nil {
		return cli.ExitError, err
	}
	errs := slices.Concat(loadErrors(prog, o.tests), res.errs)

	if o.sarif != "" {
		log := report.SARIF(prog.Root, rules(o.checks, o.ids, res.findings), res.findings, errs)
		if err := sarif.WriteFile(env.Stdout, dir, o.sarif, log); err != nil {
			return cli.ExitError, err
		}
	}
	if o.html != "" {
		run := report.HTMLRun{Title: "precog vet", Command: o.command, Dir: dir, Start: start, Elapsed: time.Since(start), Errors: errs}
		if err := report.HTMLFile((&cli.Env{Dir: dir}).Resolve(o.html), run, res.findings); err != nil {
			return cli.ExitError, err
		}
	}
	if o.sarif != "-" {
		print := report.Text
		if o.json {
			print = func(w io.Writer, _ string, fs []finding.Finding) error { return report.JSON(w, fs) }
		}
		if err := print(env.Stdout, dir, res.findings); err != nil {
			return cli.ExitError, fmt.Errorf("writing findings: %w", err)
		}
	}

	found, internal := 0, 0
	for _, f := range res.findings {
		switch f.Kind {
		case finding.InternalError:
			internal++
		case finding.Limit:
			// A note that an analysis stopped at its budget says
			// what was not checked, not a bug found: alone, it
			// leaves the exit status 0.
		default:
			found++
		}
	}
	switch {
	case len(errs) > 0:
		if bad, all := notChecked(prog); bad > 0 && bad < all {
			errs = append(errs, checkedLine(bad, all))
		}
		return cli.ExitError, joinLines(errs)
	case found > 0:
		return cli.ExitFindings, nil
	case internal > 0:
		return cli.ExitError, fmt.Errorf("no findings, but %d internal error(s) in precog's checks", internal)
	}
	return cli.ExitOK, nil
}

// notChecked returns how many of the packages matching the patterns vet
// did not check, since they (their tests, with -test) or a package they
// import did not load or type-check, and how many match: a package and
// its test variants count once.
func notChecked(prog *static.Program) (bad, all int) {
	ill := make(map[string]bool)
	for _, p := range prog.Packages {
		path := strings.TrimSuffix(p.PkgPath, "_test")
		ill[path] = ill[path] || p.IllTyped
	}
	for _, b := range ill {
		if b {
			bad++
		}
	}
	return bad, len(ill)
}

// checkedLine is the line after the load errors that says what vet
// checked, when it checked some of the packages matched: without it, a
// module with two cgo packages that cannot build here printed their
// errors alone, and the user could not tell whether its other eleven
// packages were checked (held-out rehearsal 46's gortmplib). When none
// was, the errors say so.
func checkedLine(bad, all int) string {
	return fmt.Sprintf("checked %d of %d packages (their findings, if any, are above); %d %s not: %s",
		all-bad, all, bad, cli.Plural(bad, "was", "were"), cli.Plural(bad, "it has the errors above, or imports a package that has them", "they have the errors above, or import a package that has them"))
}

// joinLines returns an error whose text has one line per message.
func joinLines(lines []string) error {
	return fmt.Errorf("%s", strings.Join(lines, "\n"))
}
