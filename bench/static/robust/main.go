// Command robust checks that precog's static checks finish on large
// codebases, and measures them beside go vet in the same run.
//
// For each package set (the standard library, golang.org/x/tools at the
// version precog depends on, the largest modules of bench/corpus) it runs,
// one after the other:
//
//	go vet PKGS                      through a wrapper around go vet's own tool
//	go vet -vettool=precog PKGS      through the same wrapper around precog
//	precog vet PKGS                  one process
//
// The wrapper is this program: go vet starts it once per package, it runs
// the real tool under the address-space limit (-mem) and a time limit
// (-pkgtimeout), and appends the package's wall time, CPU time, peak RSS,
// exit status and what its output says (a crash, an internal error, a
// budget note) to a log. It answers go vet's -V=full with a fresh build ID
// for every run, so that go vet's cache never replays an earlier analysis,
// and the build cache only needs to be compile-warm (the harness compiles
// every package and its tests first).
//
// It prints Markdown: per set, each tool's totals with the ratios to go
// vet; the packages where the vettool crashed, timed out or noted a
// budget; the packages where it was slowest, beside go vet's time for the
// same package; and, for the ten slowest, where the time goes, from a CPU
// profile of precog's checks on that package alone (the ../profile
// driver). With -details DIR it also writes the per-package table of
// every set to DIR/SET.md.
//
// Usage, from the repository root:
//
//	go -C bench/static run ./robust -sets std,x/tools,corpus -details ../static/robust
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
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
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A pkgSet is a named list of package patterns and the module directory,
// relative to the repository root, they are resolved from.
type pkgSet struct {
	name, dir string
	patterns  []string
}

var allSets = []pkgSet{
	{"std", "bench/corpus", []string{"std"}},
	// The packages of x/tools whose imports its go.mod covers (cmd/ and
	// present need modules that x/tools does not require for itself).
	{"x/tools", "bench/static", []string{"golang.org/x/tools/go/...", "golang.org/x/tools/internal/..."}},
	// bbolt's commands need modules bench/corpus does not pin.
	{"corpus", "bench/corpus", []string{"go.etcd.io/raft/v3/...", "go.etcd.io/bbolt", "go.etcd.io/bbolt/internal/...", "github.com/dgraph-io/ristretto/v2/..."}},
	{"sample", "bench/corpus", []string{"go/types", "encoding/gob", "math/big", "net/http", "runtime", "golang.org/x/sync/..."}},
	{"x/sync", "bench/corpus", []string{"golang.org/x/sync/..."}},
}

// Environment variables of the wrapper mode.
const (
	envLog     = "PRECOG_ROBUST_LOG"     // file to append records to
	envTool    = "PRECOG_ROBUST_TOOL"    // the real vet tool
	envNonce   = "PRECOG_ROBUST_NONCE"   // build ID to answer -V=full with
	envMem     = "PRECOG_ROBUST_MEM"     // RLIMIT_AS of the tool, bytes
	envTimeout = "PRECOG_ROBUST_TIMEOUT" // time limit of one package
)

var (
	setsFlag   = flag.String("sets", "sample", "comma-separated package sets: std, x/tools, corpus, sample (a few of the largest), x/sync (a quick check of the harness)")
	precogFlag = flag.String("precog", "", "precog binary (default: build cmd/precog from the repository)")
	memGiB     = flag.Int("mem", 6, "address-space limit, in GiB, of each analysis process (RLIMIT_AS)")
	pkgTimeout = flag.Duration("pkgtimeout", 10*time.Minute, "time limit of the vet tool on one package; past it the package counts as a hang")
	timeout    = flag.Duration("timeout", 90*time.Minute, "time limit of one tool on one set")
	profiles   = flag.Int("profiles", 10, "profile the checks on this many of the slowest packages of each set")
	details    = flag.String("details", "", "directory to write each set's per-package table to (SET.md)")
	skipPrecog = flag.Bool("skip-precog-vet", false, "do not run precog vet")
)

func main() {
	if os.Getenv(envLog) != "" {
		os.Exit(wrap(os.Args[1:]))
	}
	flag.Parse()
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "robust: "+format+"\n", args...) }
	if err := run(log); err != nil {
		log("%v", err)
		os.Exit(1)
	}
}

// A record is what the wrapper logs for one vet tool process.
type record struct {
	Tool     string        `json:"tool"`
	Pkg      string        `json:"pkg"`
	VetxOnly bool          `json:"vetxOnly"` // analyzed only for facts, for an importer
	Wall     time.Duration `json:"wall"`
	CPU      time.Duration `json:"cpu"`
	RSS      int64         `json:"rss"` // bytes
	Exit     int           `json:"exit"`
	Crash    string        `json:"crash,omitempty"` // fatal error, panic, signal, out of memory, timeout
	Notes    int           `json:"notes"`           // budget notes
	Internal int           `json:"internal"`        // internal-error diagnostics
}

var (
	crashLine = regexp.MustCompile(`(?m)^(fatal error: .*|panic: .*|runtime: out of memory.*|runtime: goroutine stack exceeds.*)$`)
	noteLine  = regexp.MustCompile(`analysis (budget exhausted|incomplete)`)
)

// wrap runs the vet tool named by envTool with args, as go vet asked, and
// logs a record of the run.
func wrap(args []string) int {
	tool := os.Getenv(envTool)
	if len(args) == 1 && args[0] == "-V=full" {
		fmt.Printf("%s version devel robust buildID=%s\n", filepath.Base(tool), os.Getenv(envNonce))
		return 0
	}
	if mem, _ := strconv.ParseInt(os.Getenv(envMem), 10, 64); mem > 0 {
		lim := &syscall.Rlimit{Cur: uint64(mem), Max: uint64(mem)}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, lim); err != nil {
			fmt.Fprintf(os.Stderr, "robust: setting the memory limit: %v\n", err)
			return 2
		}
	}
	limit, _ := time.ParseDuration(os.Getenv(envTimeout))
	ctx := context.Background()
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, tool, args...)
	var out bytes.Buffer
	cmd.Stdin = os.Stdin
	cmd.Stdout = io.MultiWriter(os.Stdout, &out)
	cmd.Stderr = io.MultiWriter(os.Stderr, &out)
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintf(os.Stderr, "robust: running %s: %v\n", tool, err)
		return 2
	}
	if len(args) == 0 || !strings.HasSuffix(args[len(args)-1], ".cfg") {
		return cmd.ProcessState.ExitCode() // -flags and the like
	}
	r := record{Tool: filepath.Base(tool), Wall: wall, Exit: cmd.ProcessState.ExitCode()}
	jsonMode := false // diagnostics go to a file, and exit 1 is an error
	if cfg, err := os.ReadFile(args[len(args)-1]); err == nil {
		var c struct {
			ImportPath string
			VetxOnly   bool
			Stdout     string // the go command reads the diagnostics from this file
		}
		if json.Unmarshal(cfg, &c) == nil {
			r.Pkg, r.VetxOnly = c.ImportPath, c.VetxOnly
			if c.Stdout != "" {
				jsonMode = true
				if diags, err := os.ReadFile(c.Stdout); err == nil {
					out.Write(diags)
				}
			}
		}
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		r.RSS = ru.Maxrss * 1024
	}
	text := out.String()
	switch {
	case ctx.Err() != nil:
		r.Crash = fmt.Sprintf("timeout after %v", limit)
	case crashLine.MatchString(text):
		r.Crash = crashLine.FindString(text)
	case r.Exit < 0:
		r.Crash = cmd.ProcessState.String()
	case r.Exit != 0 && jsonMode:
		r.Crash = "failed: " + cmd.ProcessState.String()
	}
	r.Notes = len(noteLine.FindAllStringIndex(text, -1))
	r.Internal = strings.Count(text, "internal error: analyzer ")
	line, _ := json.Marshal(r)
	f, err := os.OpenFile(os.Getenv(envLog), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err == nil {
		_, err = f.Write(append(line, '\n'))
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "robust: logging: %v\n", err)
		return 2
	}
	if r.Crash != "" && r.Exit == 0 {
		return 2
	}
	return r.Exit
}

// A total is what one tool cost on one set.
type total struct {
	wall, cpu time.Duration
	rss       int64
	exit      int
	crash     string
	notes     int
	internal  int
	pkgs      map[string]record // per analyzed package (not facts-only runs), for the vet tools
	factsOnly int
	output    string
}

func run(log func(string, ...any)) error {
	repo, err := findRepo()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "precog-robust-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	precog := *precogFlag
	if precog == "" {
		precog = filepath.Join(work, "precog")
		log("building precog")
		if err := goCmd(repo, nil, "build", "-o", precog, "./cmd/precog"); err != nil {
			return fmt.Errorf("building precog: %w", err)
		}
	} else if precog, err = filepath.Abs(precog); err != nil {
		return err
	}
	profiler := filepath.Join(work, "profile")
	if err := goCmd(filepath.Join(repo, "bench", "static"), nil, "build", "-o", profiler, "./profile"); err != nil {
		return fmt.Errorf("building the profile driver: %w", err)
	}
	vet := filepath.Join(goEnv("GOTOOLDIR"), "vet")

	var sets []pkgSet
	for name := range strings.SplitSeq(*setsFlag, ",") {
		i := slices.IndexFunc(allSets, func(s pkgSet) bool { return s.name == name })
		if i < 0 {
			return fmt.Errorf("unknown package set %q", name)
		}
		sets = append(sets, allSets[i])
	}
	fmt.Printf("# precog's static checks on large codebases\n\n")
	fmt.Printf("- command: `go -C bench/static run ./robust %s`\n", strings.Join(os.Args[1:], " "))
	fmt.Printf("- %s; nproc %d; limits: %d GiB of address space per analysis process, %v per package, %v per tool and set\n\n",
		goEnv("GOVERSION"), runtime.NumCPU(), *memGiB, *pkgTimeout, *timeout)
	for n, s := range sets {
		dir := filepath.Join(repo, s.dir)
		log("compiling %s and its tests", strings.Join(s.patterns, " "))
		if err := goCmd(dir, nil, append([]string{"list", "-e", "-export", "-test", "-deps"}, s.patterns...)...); err != nil {
			return fmt.Errorf("warming the build cache: %w", err)
		}
		load0 := loadavg()
		totals := map[string]*total{}
		for i, t := range []struct{ name, tool string }{{"go vet", vet}, {"go vet -vettool=precog", precog}} {
			log("%s on %s", t.name, s.name)
			logFile := filepath.Join(work, fmt.Sprintf("set%d-tool%d.jsonl", n, i))
			env := []string{
				envLog + "=" + logFile, envTool + "=" + t.tool,
				envNonce + "=" + strconv.FormatInt(time.Now().UnixNano(), 36),
				envMem + "=" + strconv.FormatInt(int64(*memGiB)<<30, 10),
				envTimeout + "=" + pkgTimeout.String(),
			}
			tot, err := measure(dir, env, append([]string{"go", "vet", "-vettool=" + self}, s.patterns...))
			if err != nil {
				return err
			}
			if err := readRecords(logFile, tot); err != nil {
				out := tot.output
				if len(out) > 2000 {
					out = out[len(out)-2000:]
				}
				return fmt.Errorf("%w; the end of its output:\n%s", err, out)
			}
			totals[t.name] = tot
		}
		if !*skipPrecog {
			log("precog vet on %s", s.name)
			tot, err := measureLimited(dir, append([]string{precog, "vet"}, s.patterns...))
			if err != nil {
				return err
			}
			totals["precog vet"] = tot
		}
		load1 := loadavg()
		report(os.Stdout, s, totals, load0, load1)
		slow := slowest(totals["go vet -vettool=precog"], *profiles)
		if len(slow) > 0 {
			log("profiling the %d slowest packages of %s", len(slow), s.name)
			fmt.Printf("\nWhere the time goes in the %d slowest packages (precog's checks alone on the package with its tests, "+
				"one goroutine, CPU profile; analyzer times are their Run calls summed over the package and its dependencies: spawnfacts builds the SSA form of every dependency for its facts):\n\n", len(slow))
			fmt.Println("| package | analyzers (Run time) | hottest functions (flat CPU) |")
			fmt.Println("|---|---|---|")
			for _, p := range slow {
				fmt.Printf("| %s | %s |\n", p, profile(profiler, dir, work, p))
			}
		}
		if *details != "" {
			if err := writeDetails(*details, s, totals); err != nil {
				return err
			}
		}
		fmt.Println()
	}
	return nil
}

// measure runs a command in dir with the extra environment and returns its
// totals from wait4's rusage.
func measure(dir string, env, args []string) (*total, error) {
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append(env, "GOTOOLCHAIN=local")...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	t := &total{wall: time.Since(start), pkgs: map[string]record{}}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, fmt.Errorf("running %s: %w", args[0], err)
	}
	t.exit = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		t.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		t.rss = ru.Maxrss * 1024
	}
	text := out.String()
	t.output = text
	switch {
	case ctx.Err() != nil:
		t.crash = fmt.Sprintf("timeout after %v", *timeout)
	case crashLine.MatchString(text):
		t.crash = crashLine.FindString(text)
	case t.exit < 0:
		t.crash = cmd.ProcessState.String()
	}
	t.notes = len(noteLine.FindAllStringIndex(text, -1))
	t.internal = strings.Count(text, ": internal error: analyzer ")
	return t, nil
}

// measureLimited runs precog vet under the address-space limit.
func measureLimited(dir string, args []string) (*total, error) {
	// prlimit(1) would do; a shell's ulimit is as portable and needs no
	// extra package.
	sh := fmt.Sprintf("ulimit -v %d && exec \"$@\"", int64(*memGiB)<<20)
	return measure(dir, nil, append([]string{"sh", "-c", sh, "sh"}, args...))
}

// readRecords adds the wrapper's records to t.
func readRecords(file string, t *total) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("reading the per-package records: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("reading the per-package records: %w", err)
		}
		if r.Crash != "" && t.crash == "" {
			t.crash = r.Pkg + ": " + r.Crash
		}
		if r.VetxOnly {
			t.factsOnly++
			continue
		}
		t.pkgs[r.Pkg] = r
	}
	return sc.Err()
}

// report prints one set's totals and its notable packages.
func report(w io.Writer, s pkgSet, totals map[string]*total, load0, load1 string) {
	base := totals["go vet"]
	fmt.Fprintf(w, "## %s (`%s`, from %s)\n\n", s.name, strings.Join(s.patterns, " "), s.dir)
	fmt.Fprintf(w, "Load average before and after: %s / %s.\n\n", load0, load1)
	fmt.Fprintln(w, "| tool | wall | CPU | peak RSS of one process | packages analyzed (+ facts only) | crashes and hangs | packages with a budget note | internal errors | wall vs go vet | CPU vs go vet |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, name := range []string{"go vet", "go vet -vettool=precog", "precog vet"} {
		t := totals[name]
		if t == nil {
			continue
		}
		pkgs, crashes, rss := "1 process", "none", t.rss
		if len(t.pkgs) > 0 {
			pkgs = fmt.Sprintf("%d (+%d)", len(t.pkgs), t.factsOnly)
			n := 0
			for _, r := range t.pkgs {
				rss = max(rss, r.RSS)
				if r.Crash != "" {
					n++
				}
			}
			crashes = strconv.Itoa(n)
			if n > 0 {
				crashes += ": " + t.crash
			}
		} else if t.crash != "" {
			crashes = t.crash
		}
		notes := t.notes
		if len(t.pkgs) > 0 {
			notes = 0
			for _, r := range t.pkgs {
				if r.Notes > 0 {
					notes++
				}
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %d | %d | %.2fx | %.2fx |\n", name, secs(t.wall), secs(t.cpu), mib(rss), pkgs, crashes,
			notes, t.internal, t.wall.Seconds()/base.wall.Seconds(), t.cpu.Seconds()/base.cpu.Seconds())
	}
	tool := totals["go vet -vettool=precog"]
	var noted []string
	for p, r := range tool.pkgs {
		if r.Notes > 0 || r.Crash != "" {
			noted = append(noted, fmt.Sprintf("%s (%s)", p, cmp.Or(r.Crash, "budget note")))
		}
	}
	slices.Sort(noted)
	if len(noted) > 0 {
		fmt.Fprintf(w, "\nPackages the vettool did not fully analyze (%d of %d, %.1f%%): %s.\n", len(noted), len(tool.pkgs),
			100*float64(len(noted))/float64(len(tool.pkgs)), strings.Join(noted, ", "))
	}
	fmt.Fprintf(w, "\nSlowest packages (by CPU) under the vettool, beside go vet on the same package in the same run:\n\n")
	fmt.Fprintln(w, "| package | vettool wall | vettool CPU | vettool peak RSS | go vet wall | go vet CPU | CPU ratio |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|")
	for _, p := range slowest(tool, 20) {
		r, b := tool.pkgs[p], base.pkgs[p]
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %.1fx |\n", p, secs(r.Wall), secs(r.CPU), mib(r.RSS), secs(b.Wall), secs(b.CPU), r.CPU.Seconds()/max(b.CPU.Seconds(), 1e-2))
	}
}

// slowest returns the n packages on which the vet tool took the most CPU
// time, which a loaded machine disturbs less than wall time.
func slowest(t *total, n int) []string {
	if t == nil {
		return nil
	}
	var pkgs []string
	for p := range t.pkgs {
		pkgs = append(pkgs, p)
	}
	slices.SortFunc(pkgs, func(a, b string) int {
		return cmp.Or(cmp.Compare(t.pkgs[b].CPU, t.pkgs[a].CPU), strings.Compare(a, b))
	})
	return pkgs[:min(n, len(pkgs))]
}

// writeDetails writes every package's record of the set.
func writeDetails(dir string, s pkgSet, totals map[string]*total) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: every package (written by bench/static/robust)\n\n", s.name)
	b.WriteString("| package | go vet wall | go vet CPU | vettool wall | vettool CPU | vettool peak RSS | exit | budget note | crash |\n|---|--:|--:|--:|--:|--:|--:|--:|---|\n")
	tool, base := totals["go vet -vettool=precog"], totals["go vet"]
	var pkgs []string
	for p := range tool.pkgs {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
		r := tool.pkgs[p]
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %d | %d | %s |\n", p, secs(base.pkgs[p].Wall), secs(base.pkgs[p].CPU), secs(r.Wall), secs(r.CPU), mib(r.RSS), r.Exit, r.Notes, r.Crash)
	}
	name := strings.NewReplacer("/", "-").Replace(s.name) + ".md"
	return os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644)
}

// profile runs the profile driver on one package (a vet package ID such as
// "p [p.test]" or "p_test" names p, which the driver loads with its tests)
// and summarizes where its time went.
func profile(driver, dir, work, pkg string) string {
	path, _, _ := strings.Cut(pkg, " ")
	path = strings.TrimSuffix(path, "_test")
	pprofFile := filepath.Join(work, "cpu.pprof")
	sh := fmt.Sprintf("ulimit -v %d && exec \"$@\"", int64(*memGiB)<<20)
	ctx, cancel := context.WithTimeout(context.Background(), *pkgTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", sh, "sh", driver, "-sequential", "-stopafter", pkgTimeout.String(), "-cpuprofile", pprofFile, path)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil && !bytes.Contains(out, []byte("analysis stopped after")) {
		return fmt.Sprintf("profile failed: %v | |", err)
	}
	var runs []string
	inTable := false
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(line, "time in Run") {
			inTable = true
			continue
		}
		f := strings.Fields(line)
		if inTable && len(f) >= 2 && len(runs) < 5 {
			runs = append(runs, f[0]+" "+f[1])
		}
	}
	top, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=5", "-hide=runtime|syscall", pprofFile).Output()
	var hot []string
	if err == nil {
		rows := false
		for line := range strings.Lines(string(top)) {
			f := strings.Fields(line)
			if len(f) >= 5 && f[0] == "flat" {
				rows = true
				continue
			}
			if rows && len(f) >= 6 {
				hot = append(hot, fmt.Sprintf("%s %s", shortFunc(f[5]), f[1]))
			}
		}
	}
	return strings.Join(runs, ", ") + " | " + strings.Join(hot, ", ")
}

// shortFunc drops the module path of a function name.
func shortFunc(fn string) string {
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		return fn[i+1:]
	}
	return fn
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
func mib(b int64) string          { return fmt.Sprintf("%d MiB", b>>20) }

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return f[0]
}

func goEnv(name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

func goCmd(dir string, env []string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append(env, "GOTOOLCHAIN=local")...)
	cmd.Stdout = io.Discard
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// findRepo returns the root of the precog repository, which holds this
// module in bench/static.
func findRepo() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("finding the module: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if filepath.Base(filepath.Dir(mod)) != "static" {
		return "", fmt.Errorf("run from bench/static (go -C bench/static run ./robust), not from %s", filepath.Dir(mod))
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(mod))), nil
}
