// Command static measures the speed of precog's static checks against go vet.
//
// For each package set it runs, in interleaved rounds, from bench/corpus (so
// that golang.org/x/sync and github.com/sourcegraph/conc resolve to the
// pinned versions):
//
//	go vet PKGS                    the default vet suite
//	precog vet PKGS                precog's driver: go/packages and checker, one process
//	go vet -vettool=precog PKGS    precog as users run it under go vet: one process per package
//
// and prints a Markdown table of the median wall time, CPU time (user+sys)
// and peak RSS of each, with the ratios to go vet measured in the same
// round (median, min and max over rounds), followed by the environment.
// Each round runs the tools in the opposite order of the round before.
//
// # The build cache
//
// Every run starts from a compile-warm but analysis-cold build cache. The
// harness fills one GOCACHE by compiling the packages, their tests and all
// their dependencies (go list -export -test -deps, once as go vet's build
// asks and once with the flags that go/packages passes), then copies it
// with cp -a into a fresh directory for each run. Compiling is not what is
// measured, so it must be cached; but go vet stores each package's vet
// result and facts in the build cache too, keyed by the vet tool, so
// without a fresh copy the second round of a tool would replay its first
// instead of analyzing anything.
//
// # Measurement
//
// CPU time and peak RSS come from the rusage that wait4 returns for the
// child (os.ProcessState.SysUsage). On Linux it covers the child and every
// descendant it waited for, as the go command waits for each vet tool and
// go list it starts: user+sys CPU is the sum over the whole process tree,
// while ru_maxrss is the peak resident set of the largest single process in
// it, not of processes running at the same time. go vet runs up to
// GOMAXPROCS vet processes at once, so its footprint can be a few times the
// peak reported for it; precog vet is one process. (getrusage with
// RUSAGE_CHILDREN around each run would give the same CPU, but its maxrss
// is a running maximum over every child ever waited for, so it cannot be
// taken per run; /usr/bin/time -v reads the same wait4 rusage.)
//
// # Exit codes
//
// go vet exits 1 both when it finds something and when it fails; a run
// counts as findings only if everything on its stderr is a "# package"
// header, a file:line:col diagnostic or an indented continuation. precog vet
// exits 3 on findings and 1 on errors. A run that fails is not timed: it is
// reported at once on stderr, with its output saved to a log file, that
// tool is dropped for that set, its cell in the table says FAILED, and the
// harness exits with status 1.
//
// Every process that the harness starts runs under an address-space limit
// (-mem, RLIMIT_AS) and every run under a time limit (-timeout), so that a
// runaway analysis fails instead of exhausting a shared machine.
//
// Usage, from the repository root (bench/static is a module of its own, so
// that it stays out of the main module's go test ./...):
//
//	go -C bench/static run . -rounds 3
//
// The profile subdirectory holds a driver that runs precog's checks like
// precog vet and writes a CPU profile, for when precog is slow. The robust
// subdirectory runs the three tools over large package sets (the standard
// library, x/tools, the largest modules of bench/corpus) and reports each
// package's time, memory, crashes and budget notes.
package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

// A pkgSet is a named list of package patterns, analyzed in one run.
type pkgSet struct {
	name     string
	patterns []string
}

var allSets = []pkgSet{
	{"x/sync", []string{"golang.org/x/sync/..."}},
	{"conc", []string{"github.com/sourcegraph/conc/..."}},
	{"std", []string{"net/http", "context", "sync", "database/sql"}},
}

// A tool is one way of analyzing a package set.
type tool struct {
	name string
	// args returns the command line, given the precog binary.
	args func(precog string) []string
	// findings checks how a run ended and counts its diagnostics, or
	// returns an error if the run failed.
	findings func(code int, stdout, stderr string) (int, error)
}

var allTools = []tool{
	{"go vet", func(string) []string { return []string{"go", "vet"} }, goVetFindings},
	{"precog vet", func(p string) []string { return []string{p, "vet"} }, precogVetFindings},
	{"go vet -vettool=precog", func(p string) []string { return []string{"go", "vet", "-vettool=" + p} }, goVetFindings},
}

// A sample is what one run measured.
type sample struct {
	wall, cpu time.Duration
	rss       int64 // bytes
	findings  int
	internal  int // findings that are precog internal errors
}

// A cell collects the samples of one tool on one set, one per round.
type cell struct {
	samples []sample
	failed  string // why the tool was dropped for the set, if it was
}

var (
	rounds     = flag.Int("rounds", 3, "number of rounds")
	precogFlag = flag.String("precog", "", "precog binary to measure, relative to bench/static (default: build cmd/precog from the repository)")
	setsFlag   = flag.String("sets", "", "comma-separated package sets to run (default all: x/sync,conc,std)")
	toolsFlag  = flag.String("tools", "", `comma-separated tools to run (default all: "go vet,precog vet,go vet -vettool=precog")`)
	timeout    = flag.Duration("timeout", 15*time.Minute, "time limit of one run")
	memGiB     = flag.Int("mem", 10, "address-space limit, in GiB, of every process the harness starts (RLIMIT_AS), so that a runaway analysis fails instead of exhausting a shared machine; 0 for none")
	workFlag   = flag.String("work", "", "directory for the build caches (default: a new temporary directory, removed at exit)")
)

func main() {
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "static: "+format+"\n", args...) }
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go -C bench/static run . [flags]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 || *rounds < 1 {
		flag.Usage()
		os.Exit(2)
	}
	sets, tools, err := choose()
	if err != nil {
		log("%v", err)
		os.Exit(2)
	}
	if *memGiB > 0 {
		lim := &syscall.Rlimit{Cur: uint64(*memGiB) << 30, Max: uint64(*memGiB) << 30}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, lim); err != nil {
			log("setting the memory limit: %v", err)
			os.Exit(1)
		}
	}
	if err := run(sets, tools, log); err != nil {
		log("%v", err)
		os.Exit(1)
	}
}

// choose returns the package sets and tools that the flags name.
func choose() ([]pkgSet, []tool, error) {
	sets, tools := allSets, allTools
	if *setsFlag != "" {
		sets = nil
		for name := range strings.SplitSeq(*setsFlag, ",") {
			i := slices.IndexFunc(allSets, func(s pkgSet) bool { return s.name == name })
			if i < 0 {
				return nil, nil, fmt.Errorf("unknown package set %q", name)
			}
			sets = append(sets, allSets[i])
		}
	}
	if *toolsFlag != "" {
		tools = nil
		for name := range strings.SplitSeq(*toolsFlag, ",") {
			i := slices.IndexFunc(allTools, func(t tool) bool { return t.name == name })
			if i < 0 {
				return nil, nil, fmt.Errorf("unknown tool %q", name)
			}
			tools = append(tools, allTools[i])
		}
	}
	if tools[0].name != "go vet" {
		return nil, nil, errors.New(`-tools must start with "go vet", the baseline of the ratios`)
	}
	return sets, tools, nil
}

func run(sets []pkgSet, tools []tool, log func(string, ...any)) error {
	repo, err := findRepo()
	if err != nil {
		return err
	}
	corpus := filepath.Join(repo, "bench", "corpus")
	work := *workFlag
	if work == "" {
		if work, err = os.MkdirTemp("", "precog-static-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	}
	env := environment(repo)

	precog := *precogFlag
	if precog == "" {
		precog = filepath.Join(work, "precog")
		log("building precog")
		if err := goCmd(repo, "", "build", "-o", precog, "github.com/precog-dev/precog/cmd/precog"); err != nil {
			return fmt.Errorf("building precog: %w", err)
		}
	} else {
		if precog, err = filepath.Abs(precog); err != nil {
			return err
		}
		env.precog = "binary " + precog
	}

	var all []string
	for _, s := range sets {
		all = append(all, s.patterns...)
	}
	warm := filepath.Join(work, "warm")
	log("compiling %s into %s", strings.Join(all, " "), warm)
	// What go vet's build compiles, then what precog vet's go/packages
	// asks for: the same packages plus the generated test mains, built
	// with -pgo=off, and the compiled file lists.
	if err := goCmd(corpus, warm, append([]string{"list", "-export", "-test", "-deps"}, all...)...); err != nil {
		return fmt.Errorf("warming the build cache: %w", err)
	}
	if err := goCmd(corpus, warm, append([]string{"list", "-export", "-test", "-deps", "-compiled", "-find=false", "-pgo=off"}, all...)...); err != nil {
		return fmt.Errorf("warming the build cache: %w", err)
	}

	cells := make(map[[2]string]*cell)
	load := loadRange{min: 1e9}
	for r := range *rounds {
		order := slices.Clone(tools)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, s := range sets {
			for _, t := range order {
				c := cells[[2]string{s.name, t.name}]
				if c == nil {
					c = new(cell)
					cells[[2]string{s.name, t.name}] = c
				}
				if c.failed != "" {
					continue
				}
				load.sample()
				log("round %d/%d: %s on %s", r+1, *rounds, t.name, s.name)
				smp, err := measure(work, warm, corpus, precog, s, t)
				if err != nil {
					c.failed = err.Error()
					log("%s on %s FAILED: %v", t.name, s.name, err)
					continue
				}
				c.samples = append(c.samples, smp)
			}
		}
	}
	load.sample()

	printTable(os.Stdout, sets, tools, cells)
	fmt.Println()
	fmt.Printf("- command: `go -C bench/static run . %s`\n", shellJoin(os.Args[1:]))
	fmt.Printf("- precog: %s\n", env.precog)
	fmt.Printf("- %s; nproc %d; GOMAXPROCS=%s; %s\n", env.goVersion, runtime.NumCPU(), cmp.Or(os.Getenv("GOMAXPROCS"), "unset"), env.cpu)
	fmt.Printf("- load average (1 min) during the runs: %.2f to %.2f\n", load.min, load.max)
	fmt.Printf("- %d rounds, tools in alternating order; each run from a fresh copy of a compile-warm, analysis-cold GOCACHE; "+
		"CPU = user+sys of the process tree; peak RSS = largest single process in the tree; findings = distinct diagnostics in round 1; "+
		"limits per run: %v, %d GiB of address space per process\n", *rounds, *timeout, *memGiB)
	for _, s := range sets {
		for _, t := range tools {
			if c := cells[[2]string{s.name, t.name}]; c.failed != "" {
				return fmt.Errorf("%s on %s failed", t.name, s.name)
			}
		}
	}
	return nil
}

// measure runs tool t on set s from a fresh copy of the warm cache.
func measure(work, warm, corpus, precog string, s pkgSet, t tool) (sample, error) {
	cache := filepath.Join(work, "run")
	if err := os.RemoveAll(cache); err != nil {
		return sample{}, err
	}
	if out, err := exec.Command("cp", "-a", warm, cache).CombinedOutput(); err != nil {
		return sample{}, fmt.Errorf("copying the build cache: %v: %s", err, bytes.TrimSpace(out))
	}
	defer os.RemoveAll(cache)

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	args := append(t.args(precog), s.patterns...)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = corpus
	cmd.Env = append(os.Environ(), "GOCACHE="+cache, "GOTOOLCHAIN=local")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)

	fail := func(format string, a ...any) (sample, error) {
		msg := fmt.Sprintf(format, a...)
		logFile, lerr := saveLog(args, &stdout, &stderr)
		if lerr != nil {
			return sample{}, fmt.Errorf("%s (saving its output: %v)", msg, lerr)
		}
		return sample{}, fmt.Errorf("%s; output in %s", msg, logFile)
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return fail("timed out after %v", *timeout)
	case err != nil && !errors.As(err, &exit):
		return sample{}, fmt.Errorf("running %s: %w", args[0], err)
	}
	code := cmd.ProcessState.ExitCode()
	if code != 0 && *memGiB > 0 && strings.Contains(stdout.String()+stderr.String(), "out of memory") {
		return fail("out of memory under the -mem limit of %d GiB of address space", *memGiB)
	}
	if code < 0 {
		return fail("%v", cmd.ProcessState)
	}
	n, ferr := t.findings(code, stdout.String(), stderr.String())
	if ferr != nil {
		return fail("exit status %d: %v", code, ferr)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return sample{}, errors.New("no rusage for the child on this system")
	}
	return sample{
		wall:     wall,
		cpu:      time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		rss:      ru.Maxrss * 1024, // kilobytes on Linux
		findings: n,
		internal: strings.Count(stdout.String()+stderr.String(), ": internal error: analyzer "),
	}, nil
}

// saveLog writes the command line and output of a failed run to a new file
// that outlives the harness, and returns its name.
func saveLog(args []string, stdout, stderr *bytes.Buffer) (string, error) {
	f, err := os.CreateTemp("", "precog-static-*.log")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(f, "$ %s\n== stdout\n%s\n== stderr\n%s", strings.Join(args, " "), stdout, stderr)
	return f.Name(), f.Close()
}

var (
	diagLine     = regexp.MustCompile(`^\S+\.go:\d+(:\d+)?: `)
	evidenceLine = regexp.MustCompile(`^\S+\.go:\d+(:\d+)?: \t`)
	precogLine   = regexp.MustCompile(`^\S+\.go:\d+(:\d+)?: .* \[[a-z0-9-]+\]$`)
)

// goVetFindings accepts exit status 0, or 1 with nothing but diagnostics on
// stderr, and counts the distinct diagnostics: a package's files are
// analyzed in both the package and its test variant, and evidence lines
// ("file:line:col: \tmessage", from unitchecker) are not findings.
func goVetFindings(code int, _, stderr string) (int, error) {
	diags := make(map[string]bool)
	for line := range strings.Lines(stderr) {
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "" || strings.HasPrefix(line, "# ") || line[0] == ' ' || line[0] == '\t':
		case evidenceLine.MatchString(line):
		case diagLine.MatchString(line):
			diags[line] = true
		default:
			return 0, fmt.Errorf("not a diagnostic: %s", line)
		}
	}
	n := len(diags)
	switch {
	case code == 0 && n == 0, code == 1 && n > 0:
		return n, nil
	case code == 1:
		return 0, errors.New("failed without a diagnostic")
	}
	return 0, fmt.Errorf("unexpected exit status with %d diagnostics", n)
}

// precogVetFindings accepts exit status 0, or 3 with findings, and counts
// the findings on stdout.
func precogVetFindings(code int, stdout, stderr string) (int, error) {
	n := 0
	for line := range strings.Lines(stdout) {
		if precogLine.MatchString(strings.TrimRight(line, "\n")) {
			n++
		}
	}
	switch {
	case code == 0 && n == 0, code == 3 && n > 0:
		return n, nil
	case code == 1:
		if stderr = firstLine(stderr); stderr == "" {
			stderr = "(nothing on stderr)"
		}
		return 0, fmt.Errorf("error: %s", stderr)
	}
	return 0, fmt.Errorf("unexpected exit status with %d findings", n)
}

// shellJoin quotes args for a POSIX shell where they need it.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// printTable prints one row per set and tool: medians over rounds, and the
// ratios to go vet on the same set in the same round.
func printTable(w io.Writer, sets []pkgSet, tools []tool, cells map[[2]string]*cell) {
	fmt.Fprintln(w, "| packages | tool | wall | CPU | peak RSS | findings | wall ratio | CPU ratio | RSS ratio |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|--:|")
	for _, s := range sets {
		base := cells[[2]string{s.name, tools[0].name}]
		for _, t := range tools {
			c := cells[[2]string{s.name, t.name}]
			row := fmt.Sprintf("| %s | %s |", s.name, t.name)
			if c.failed != "" {
				fmt.Fprintf(w, "%s FAILED: %s ||||||\n", row, strings.ReplaceAll(c.failed, "|", `\|`))
				continue
			}
			found := fmt.Sprint(c.samples[0].findings)
			if in := c.samples[0].internal; in > 0 {
				found += fmt.Sprintf(" (%d internal errors)", in)
			}
			row += fmt.Sprintf(" %.2f s | %.2f s | %s | %s |",
				medianOf(c.samples, func(s sample) float64 { return s.wall.Seconds() }),
				medianOf(c.samples, func(s sample) float64 { return s.cpu.Seconds() }),
				mib(medianOf(c.samples, func(s sample) float64 { return float64(s.rss) })),
				found)
			if t.name == tools[0].name || base.failed != "" {
				fmt.Fprintf(w, "%s | | |\n", row)
				continue
			}
			fmt.Fprintf(w, "%s %s | %s | %s |\n", row,
				ratios(c, base, func(s sample) float64 { return s.wall.Seconds() }),
				ratios(c, base, func(s sample) float64 { return s.cpu.Seconds() }),
				ratios(c, base, func(s sample) float64 { return float64(s.rss) }))
		}
	}
}

// ratios formats the median, min and max over rounds of c's metric over
// base's in the same round.
func ratios(c, base *cell, metric func(sample) float64) string {
	r := make([]float64, len(c.samples))
	for i, s := range c.samples {
		r[i] = metric(s) / metric(base.samples[i])
	}
	return fmt.Sprintf("%.2fx (%.2f–%.2f)", median(r), slices.Min(r), slices.Max(r))
}

// medianOf returns the median of metric over samples.
func medianOf(samples []sample, metric func(sample) float64) float64 {
	v := make([]float64, len(samples))
	for i, s := range samples {
		v[i] = metric(s)
	}
	return median(v)
}

func median(v []float64) float64 {
	v = slices.Sorted(slices.Values(v))
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

func mib(bytes float64) string { return fmt.Sprintf("%.0f MiB", bytes/(1<<20)) }

// findRepo returns the repository root: the nearest directory, from the
// working directory up, that holds bench/corpus/go.mod.
func findRepo() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "bench", "corpus", "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no bench/corpus/go.mod in the working directory or above it: run from within the precog repository")
		}
		dir = parent
	}
}

// goCmd runs the go command in dir, with GOCACHE set to cache unless it is
// empty, and returns its first line of stderr as the error if it fails.
func goCmd(dir, cache string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if cache != "" {
		cmd.Env = append(cmd.Env, "GOCACHE="+cache)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %v: %s", args[0], err, firstLine(stderr.String()))
	}
	return nil
}

// env describes what the numbers were measured with.
type env struct {
	goVersion, precog, cpu string
}

func environment(repo string) env {
	out := func(dir string, args ...string) string {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		b, err := cmd.Output()
		if err != nil {
			return "unknown"
		}
		return strings.TrimSpace(string(b))
	}
	e := env{
		goVersion: out("", "go", "version"),
		precog:    "commit " + out(repo, "git", "describe", "--always", "--dirty", "--exclude=*"),
		cpu:       "unknown CPU",
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				e.cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	return e
}

// loadRange tracks the lowest and highest 1-minute load average seen.
type loadRange struct{ min, max float64 }

func (l *loadRange) sample() {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return
	}
	var v float64
	if _, err := fmt.Sscan(string(b), &v); err == nil {
		l.min, l.max = min(l.min, v), max(l.max, v)
	}
}
