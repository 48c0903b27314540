// Command explaincost measures what precog explain's full-tracing recording
// mode (instrument.Config.Locals: every load and store, local variables
// included) costs against the plain test binary and against precog's normal
// recording (the shared accesses only), on workloads of bench/corpus, in
// interleaved rounds within one run. (bench/explain measures the root
// causes explain finds on the kernels.)
//
// CPU is user+sys of the test binary from wait4, which the machine's load
// changes less than wall time. Ratios are the median of the per-round
// ratios (min-max).
//
// Usage, from the repository root (a module of its own, outside go test
// ./...):
//
//	go -C bench/explaincost run . -rounds 3
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/precog-dev/precog/pipeline/instrument"
)

var (
	rounds  = flag.Int("rounds", 3, "rounds of interleaved runs for the overhead")
	only    = flag.String("w", "golang-lru,x/sync/errgroup,raft", "comma-separated bench/corpus workloads for the overhead (\"\" for none)")
	timeout = flag.Duration("timeout", 10*time.Minute, "time limit of one test binary run")
)

var workloads = map[string]string{
	"raft":             "go.etcd.io/raft/v3",
	"golang-lru":       "github.com/hashicorp/golang-lru/v2",
	"x/sync/errgroup":  "golang.org/x/sync/errgroup",
	"x/sync/syncmap":   "golang.org/x/sync/syncmap",
	"pond":             "github.com/alitto/pond/v2",
	"x/sync/semaphore": "golang.org/x/sync/semaphore",
}

func main() {
	flag.Parse()
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "explain:", err)
		os.Exit(1)
	}
	fmt.Printf("- go: %s; nproc %s; load average (1 min) at start %s\n", goVersion(), strings.TrimSpace(run("nproc")), loadavg())
	if *only != "" {
		if err := overhead(root); err != nil {
			fmt.Fprintln(os.Stderr, "explain:", err)
			os.Exit(1)
		}
	}
	fmt.Printf("- load average (1 min) at the end %s\n", loadavg())
}

func repoRoot() (string, error) {
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
			return "", errors.New("run from within the precog repository")
		}
		dir = parent
	}
}

func run(name string, args ...string) string {
	out, _ := exec.Command(name, args...).Output()
	return string(out)
}

func goVersion() string { return strings.TrimSpace(run("go", "env", "GOVERSION")) }

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

type sample struct{ cpu, wall time.Duration }

// overhead builds each workload's test binary plain, with the normal
// recording and with explain's full tracing, and runs them in
// interleaved rounds.
func overhead(root string) error {
	corpus := filepath.Join(root, "bench", "corpus")
	work, err := os.MkdirTemp("", "precog-bench-explain-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	names := []string{"plain", "record", "explain"}
	fmt.Printf("\n| workload | plain CPU | record/plain CPU | explain/plain CPU | explain/record CPU | explain/record trace bytes | record / explain sites |\n|---|--:|--:|--:|--:|--:|--:|\n")
	var geo [3][]float64
	for _, w := range strings.Split(*only, ",") {
		pkg, ok := workloads[w]
		if !ok {
			return fmt.Errorf("unknown workload %q", w)
		}
		var bins [3]string
		var nsites [3]int
		for v := range 3 {
			bins[v] = filepath.Join(work, strings.ReplaceAll(w, "/", "_")+"."+names[v]+".test")
			var flags []string
			if v > 0 {
				inst, err := instrument.Instrument(context.Background(), instrument.Config{
					Dir: corpus, Patterns: []string{pkg}, Locals: v == 2, CacheDir: filepath.Join(work, "cache"),
				})
				if err != nil {
					return fmt.Errorf("%s: instrumenting: %w", w, err)
				}
				flags = inst.BuildFlags
				if data, err := os.ReadFile(inst.Sites); err == nil {
					var t struct{ Sites []json.RawMessage }
					json.Unmarshal(data, &t)
					nsites[v] = len(t.Sites)
				}
			}
			cmd := exec.Command("go", append(append([]string{"test", "-c", "-o", bins[v]}, flags...), pkg)...)
			cmd.Dir = corpus
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%s: go test -c (%s): %v: %s", w, names[v], err, oneLine(string(out)))
			}
		}
		dir := strings.TrimSpace(runIn(corpus, "go", "list", "-f", "{{.Dir}}", pkg))
		var samples [3][]sample
		var traces [3][]int64
		for r := range *rounds {
			order := []int{0, 1, 2}
			if r%2 == 1 {
				order = []int{2, 1, 0}
			}
			for _, v := range order {
				tr := filepath.Join(work, "trace")
				s, size, err := runBinary(bins[v], dir, v > 0, tr)
				if err != nil {
					return fmt.Errorf("%s (%s): %w", w, names[v], err)
				}
				samples[v] = append(samples[v], s)
				traces[v] = append(traces[v], size)
			}
		}
		cpu := func(v int) []float64 {
			var out []float64
			for _, s := range samples[v] {
				out = append(out, s.cpu.Seconds())
			}
			return out
		}
		ratio := func(a, b []float64) (float64, float64, float64) {
			var v []float64
			for i := range a {
				v = append(v, a[i]/b[i])
			}
			return median(v), slices.Min(v), slices.Max(v)
		}
		rm, rlo, rhi := ratio(cpu(1), cpu(0))
		em, elo, ehi := ratio(cpu(2), cpu(0))
		xm, xlo, xhi := ratio(cpu(2), cpu(1))
		tb := func(v int) []float64 {
			var out []float64
			for _, s := range traces[v] {
				out = append(out, float64(s))
			}
			return out
		}
		tm, _, _ := ratio(tb(2), tb(1))
		geo[0] = append(geo[0], rm)
		geo[1] = append(geo[1], em)
		geo[2] = append(geo[2], xm)
		fmt.Printf("| %s | %.2f s | %.2fx (%.2f–%.2f) | %.2fx (%.2f–%.2f) | %.2fx (%.2f–%.2f) | %.1fx | %d / %d |\n", w, median(cpu(0)), rm, rlo, rhi, em, elo, ehi, xm, xlo, xhi, tm, nsites[1], nsites[2])
	}
	fmt.Printf("\ngeometric mean: record/plain %.2fx, explain/plain %.2fx, explain/record %.2fx (CPU, %d rounds)\n", geomean(geo[0]), geomean(geo[1]), geomean(geo[2]), *rounds)
	return nil
}

func runIn(dir, name string, args ...string) string {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, _ := cmd.Output()
	return string(out)
}

func runBinary(bin, dir string, traced bool, tracePath string) (sample, int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.count=1", "-test.timeout="+timeout.String())
	cmd.Dir = dir
	cmd.Env = os.Environ()
	if traced {
		os.Remove(tracePath)
		cmd.Env = append(cmd.Env, "PRECOG_TRACE="+tracePath)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	s := sample{wall: time.Since(start)}
	if cmd.ProcessState == nil {
		return s, 0, err
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	s.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	var size int64
	if traced {
		if fi, err := os.Stat(tracePath); err == nil {
			size = fi.Size()
		}
		os.Remove(tracePath)
	}
	if err != nil {
		return s, size, fmt.Errorf("%v: %s", err, oneLine(out.String()))
	}
	return s, size, nil
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func geomean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 160 {
		s = s[:160]
	}
	return s
}
