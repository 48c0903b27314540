// Command shim measures what the shim adds to single operations: 8-byte
// reads and writes of shared variables, an uncontended Mutex Lock+Unlock, a
// buffered channel send+receive, a go statement with its join, and Lock+
// Unlock in two goroutines at once (which contend only on the shim's global
// seq counter), an atomic.Int64 Load and Store, a sync.Pool Get and Put,
// sync.Map Loads of 1024 keys in turn, and a select that takes its default
// case. It prints ratios measured in one run, as ../../shared/BENCH.md
// asks, so that the machine's load cancels out.
//
// The benchmarks are in shim_test.go, each with a plain variant (the
// operation as written) and a shim variant (as the instrumenter rewrites
// it). The command builds this package's test binary twice, plain and with
// -race, then runs, in each of -rounds rounds, in the order plain, race,
// precog, precog, race, plain:
//
//	plain   the plain binary: the plain variants, and the shim variants with
//	        recording off ("off": no PRECOG_TRACE)
//	race    the -race binary: the plain variants (GORACE=atexit_sleep_ms=0)
//	precog  the plain binary with PRECOG_TRACE set: the shim variants,
//	        recording into a fresh trace, with every read recorded
//	        (PRECOG_REPEATS=1: the access benchmarks read the same words on
//	        every iteration, which the shim otherwise leaves out as repeats;
//	        the table is what a recorded access costs)
//
// Each benchmark runs a fixed number of iterations. The table gives, per
// benchmark, the median over rounds of each round's numbers (min and max in
// brackets): ns/op of each variant, the ns precog and -race add to plain,
// and precog's added cost as a fraction of -race's. The bytes per event come
// from the trace the precog run wrote. With valgrind installed, the command
// also counts instructions per operation with callgrind (GOMAXPROCS=1,
// GODEBUG=asyncpreemptoff=1, the difference between N and 2N iterations),
// which does not move with the machine's load (GODEBUG=cpu.rdtscp=off too,
// for valgrind 3.19).
//
// Run it from the repository root:
//
//	go run ./bench/shim [-rounds 5] [-callgrind=false] [-b regexp]
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// A bench is one benchmark of shim_test.go and its iteration count.
type bench struct {
	name string
	n    int
	per  int        // operations per iteration: the table is per operation
	kind trace.Kind // the event whose bytes to report; 0 for none
}

var benches = []bench{
	{"Read", 1_000_000, 8, trace.EvRead},
	{"ReadSites", 1_000_000, 8, trace.EvRead},
	{"ReadMiss", 1_000_000, 8, trace.EvRead},
	{"Write", 1_000_000, 8, trace.EvWrite},
	{"Call", 1_000_000, 8, trace.EvRead},
	{"CallOwn", 1_000_000, 8, trace.EvRead},
	{"Lock", 2_000_000, 1, 0},
	{"Chan", 1_000_000, 1, 0},
	{"GoJoin", 100_000, 1, 0},
	{"ParallelLock", 2_000_000, 1, 0},
	{"ParallelLoad", 2_000_000, 1, 0},
	{"Atomic", 2_000_000, 1, 0},
	{"Pool", 1_000_000, 1, trace.EvPoolGet},
	{"SyncMapLoad", 500_000, 8, trace.EvAtomicLoad},
	{"SyncMapLoadScalar", 500_000, 8, trace.EvAtomicLoad},
	{"SyncMapStore", 200_000, 8, trace.EvAtomicStore},
	{"SyncMapRange", 2_000, 1024, trace.EvAtomicLoad},
	{"Select", 1_000_000, 1, trace.EvSelect},
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("bench/shim: ")
	rounds := flag.Int("rounds", 5, "number of rounds")
	useCallgrind := flag.Bool("callgrind", true, "count instructions with callgrind if valgrind is installed")
	only := flag.String("b", "", "run only the benchmarks whose names match this regexp")
	flag.Parse()
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			log.Fatalf("-b: %v", err)
		}
		benches = slices.DeleteFunc(benches, func(b bench) bool { return !re.MatchString(b.name) })
	}

	dir, err := os.MkdirTemp("", "benchshim")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	plainBin, raceBin := filepath.Join(dir, "plain.test"), filepath.Join(dir, "race.test")
	build(plainBin)
	build(raceBin, "-race")

	fmt.Printf("command: go run ./bench/shim -rounds %d -b %q\n", *rounds, *only)
	fmt.Printf("go: %s %s/%s, nproc %d, load average at start: %s\n", goVersion(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), loadavg())

	// samples[bench][variant] holds one value per round.
	type key struct{ bench, variant string }
	samples := make(map[key][]float64)
	bytesPer := make(map[string]float64)
	for r := 0; r < *rounds; r++ {
		round := make(map[key][]float64)
		for _, config := range []string{"plain", "race", "precog", "precog", "race", "plain"} {
			for _, b := range benches {
				switch config {
				case "plain":
					res := run(plainBin, b, "", nil)
					round[key{b.name, "plain"}] = append(round[key{b.name, "plain"}], res["plain"])
					round[key{b.name, "off"}] = append(round[key{b.name, "off"}], res["shim"])
				case "race":
					res := run(raceBin, b, "plain", []string{"GORACE=atexit_sleep_ms=0"})
					round[key{b.name, "race"}] = append(round[key{b.name, "race"}], res["plain"])
				case "precog":
					tr := filepath.Join(dir, "trace")
					res := run(plainBin, b, "shim", []string{"PRECOG_TRACE=" + tr, plan.RepeatsEnv + "=1"})
					round[key{b.name, "precog"}] = append(round[key{b.name, "precog"}], res["shim"])
					if b.kind != 0 && bytesPer[b.name] == 0 {
						bytesPer[b.name] = eventBytes(tr, b.kind)
					}
					os.Remove(tr)
				}
			}
		}
		for k, v := range round {
			samples[k] = append(samples[k], mean(v))
		}
	}

	fmt.Printf("load average at the end: %s\n\n", loadavg())
	fmt.Println("ns per operation (Read and Write: per access; the benchmarks make eight per iteration), median of the")
	fmt.Println("rounds [min max]; added = variant - plain; precog/race = precog's added ns over -race's")
	fmt.Println()
	fmt.Println("| benchmark | plain | shim off | precog | race | precog added | race added | precog/race added | bytes/event |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, b := range benches {
		get := func(v string) []float64 { return samples[key{b.name, v}] }
		plain, off, precog, race := get("plain"), get("off"), get("precog"), get("race")
		addP, addR, frac := make([]float64, len(plain)), make([]float64, len(plain)), make([]float64, len(plain))
		for i := range plain {
			addP[i], addR[i] = precog[i]-plain[i], race[i]-plain[i]
			frac[i] = addP[i] / addR[i]
		}
		bytesCol := "-"
		if v := bytesPer[b.name]; v > 0 {
			bytesCol = fmt.Sprintf("%.2f", v)
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", b.name,
			stat(plain), stat(off), stat(precog), stat(race), stat(addP), stat(addR), stat(frac), bytesCol)
	}

	if _, err := exec.LookPath("valgrind"); err != nil || !*useCallgrind {
		return
	}
	fmt.Println()
	fmt.Println("instructions per op (callgrind, GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1, I(2N)-I(N) over N)")
	fmt.Println()
	fmt.Println("| benchmark | plain | shim off | precog | race | precog added | race added |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, b := range benches {
		if b.name == "ParallelLock" || b.name == "ParallelLoad" {
			continue // callgrind runs one thread at a time: no contention to see
		}
		n := b.n / 50
		plain := instructions(plainBin, b, "plain", n, nil)
		off := instructions(plainBin, b, "shim", n, nil)
		precog := instructions(plainBin, b, "shim", n, []string{"PRECOG_TRACE=" + filepath.Join(dir, "cgtrace"), plan.RepeatsEnv + "=1"})
		race := instructions(raceBin, b, "plain", n, []string{"GORACE=atexit_sleep_ms=0"})
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s |\n", b.name, ins(plain), ins(off), ins(precog), ins(race),
			ins(diff(precog, plain)), ins(diff(race, plain)))
	}
}

func build(out string, flags ...string) {
	args := append([]string{"test", "-c", "-o", out}, flags...)
	cmd := exec.Command("go", append(args, "./bench/shim")...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("go %s: %v (run from the repository root)", strings.Join(args, " "), err)
	}
}

var benchLine = regexp.MustCompile(`^Benchmark\w+/(\w+)(?:-\d+)?\s+\d+\s+([0-9.]+) ns/op`)

// run runs benchmark b's variants matching sub ("" for both) and returns
// ns/op per variant.
func run(bin string, b bench, sub string, env []string) map[string]float64 {
	pattern := "^Benchmark" + b.name + "$"
	if sub != "" {
		pattern += "/^" + sub + "$"
	}
	cmd := exec.Command(bin, "-test.run=^$", "-test.bench="+pattern, "-test.benchtime="+strconv.Itoa(b.n)+"x", "-test.cpu=2")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("%s %s: %v\n%s", filepath.Base(bin), pattern, err, out)
	}
	res := make(map[string]float64)
	for _, line := range strings.Split(string(out), "\n") {
		if m := benchLine.FindStringSubmatch(line); m != nil {
			v, _ := strconv.ParseFloat(m[2], 64)
			res[m[1]] = v / float64(b.per)
		}
	}
	if sub != "" && res[sub] == 0 {
		log.Fatalf("%s %s: no result in\n%s", filepath.Base(bin), pattern, out)
	}
	return res
}

// eventBytes returns the bytes of the trace's batches (headers included)
// per event of kind k: the benchmark's events are nearly all of them.
func eventBytes(path string, k trace.Kind) float64 {
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	r, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		log.Fatal(err)
	}
	n := 0
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatalf("%s: %v", path, err)
		}
		if ev.Kind == k {
			n++
		}
	}
	return float64(batchBytes(data)) / float64(n)
}

// batchBytes sums the lengths of the batches in a trace that reads
// cleanly: it skips the header, then walks 'B', id, seq, sub, length,
// events, and the zero padding between batches.
func batchBytes(data []byte) int {
	p := len("precog trace\n")
	uv := func() uint64 {
		v, n := binary.Uvarint(data[p:])
		p += n
		return v
	}
	uv()           // version
	p += int(uv()) // test
	p += int(uv()) // package
	uv()           // start
	uv()           // pid
	total := 0
	for p < len(data) {
		if data[p] == 0 {
			p++
			continue
		}
		start := p
		p++                                                // 'B'
		uv()                                               // goroutine
		uv()                                               // seq
		uv()                                               // sub
		p += 4 + int(binary.LittleEndian.Uint32(data[p:])) // the length, 4 bytes
		total += p - start
	}
	return total
}

var collected = regexp.MustCompile(`Collected : ([0-9,]+)`)

// instructions returns the instructions per iteration of one variant
// under callgrind, or -1 if valgrind cannot run it.
func instructions(bin string, b bench, sub string, n int, env []string) float64 {
	// cpu.rdtscp=off: valgrind 3.19 does not know RDTSCP, which the
	// runtime's cputicks runs when a lock spins (sysmon's, now and then);
	// the program died of SIGILL part way, and its count, of a run cut
	// short, was printed as if whole. A run that fails is now n/a.
	count := func(iters int) (float64, bool) {
		cmd := exec.Command("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", bin,
			"-test.run=^$", "-test.bench=^Benchmark"+b.name+"$/^"+sub+"$", "-test.benchtime="+strconv.Itoa(iters)+"x")
		cmd.Env = append(os.Environ(), append(env, "GOMAXPROCS=1", "GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off")...)
		out, err := cmd.CombinedOutput()
		m := collected.FindSubmatch(out)
		if err != nil || m == nil {
			return 0, false
		}
		v, _ := strconv.ParseFloat(strings.ReplaceAll(string(m[1]), ",", ""), 64)
		return v, true
	}
	a, ok1 := count(n)
	c, ok2 := count(2 * n)
	if !ok1 || !ok2 {
		return -1
	}
	return (c - a) / float64(n*b.per)
}

func diff(a, b float64) float64 {
	if a < 0 || b < 0 {
		return -1
	}
	return a - b
}

func ins(v float64) string {
	if v < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f", v)
}

func stat(v []float64) string {
	s := slices.Clone(v)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf("%s [%s %s]", num(med), num(s[0]), num(s[len(s)-1]))
}

func num(v float64) string {
	if v < 10 && v > -10 {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func mean(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t / float64(len(v))
}

func goVersion() string {
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return runtime.Version()
	}
	return strings.TrimSpace(string(out))
}

func loadavg() string {
	f, err := os.Open("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	if fields := strings.Fields(line); len(fields) >= 3 {
		return strings.Join(fields[:3], " ")
	}
	return "unknown"
}
