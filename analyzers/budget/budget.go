package budget

import (
	_ "embed"
	"fmt"
	"reflect"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/tools/go/analysis"

	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// Defaults of the flags. DefaultTime keeps the slowest package of the
// standard library, whose analysis is stopped by DefaultWork first, within
// a few times what go vet needs for it (see bench/RESULTS.md); DefaultMem
// keeps a go vet -vettool process, whose live heap holds the package's
// syntax, types and SSA before the analysis grows it, under 1 GiB of
// resident memory.
const (
	DefaultTime   = 30 * time.Second
	DefaultMemMiB = 384
	DefaultWork   = 40_000_000
)

// checkEvery is how many units of work pass between two looks at the clock
// and the heap, which cost far more than a unit of work. The first Spend
// looks.
const checkEvery = 1 << 14

var (
	maxTime   = DefaultTime
	maxMemMiB = DefaultMemMiB
	maxWork   = DefaultWork
)

func init() {
	Analyzer.Flags.DurationVar(&maxTime, "time", DefaultTime, "stop analyzing a package after this long (0: no limit)")
	Analyzer.Flags.IntVar(&maxMemMiB, "mem", DefaultMemMiB, "stop analyzing a package when the live heap has grown by this many MiB since it started (0: no limit)")
	Analyzer.Flags.IntVar(&maxWork, "work", DefaultWork, "stop analyzing a package after this many units of work (0: no limit)")
}

// Analyzer hands out the budget of a package.
var Analyzer = &analysis.Analyzer{
	Name:       "budget",
	Doc:        analyzerutil.MustExtractDoc(doc, "budget"),
	URL:        "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/budget",
	ResultType: reflect.TypeFor[*Budget](),
	Run:        func(*analysis.Pass) (any, error) { return New(maxTime, int64(maxMemMiB)<<20, int64(maxWork)), nil },
}

// A Budget is the time, memory and work that the analyses of one package
// may spend. It is safe for concurrent use, since analyzers of one package
// run in parallel. A nil *Budget is unlimited.
type Budget struct {
	begin    sync.Once
	start    time.Time     // of the first Spend
	cpu0     time.Duration // the process's processor time at the first Spend
	hasCPU   bool          // whether cpu0 (and so the processor time) is known
	heap0    int64         // live heap at the first Spend
	started  atomic.Bool
	maxTime  time.Duration
	maxHeap  int64
	maxWork  int64
	work     atomic.Int64
	nextLook atomic.Int64 // work at which to look at the clock and heap again
	reason   atomic.Pointer[string]

	mu    sync.Mutex
	skips []string
}

// New returns a budget of d of time (see spent), heap bytes of growth of the live
// heap and work units, all counted from the first Spend: the analyses of
// a package start spending only once its syntax, types and SSA are built,
// and under precog vet that can be long after the budget was made. A
// limit of 0 is no limit.
func New(d time.Duration, heap, work int64) *Budget {
	return &Budget{maxTime: d, maxHeap: heap, maxWork: work}
}

// Spend charges n units of work and reports whether the budget still
// holds. Once it does not, it never does again.
func (b *Budget) Spend(n int) bool {
	if b == nil {
		return true
	}
	if b.reason.Load() != nil {
		return false
	}
	b.begin.Do(func() {
		b.start, b.heap0 = time.Now(), liveHeap()
		b.cpu0, b.hasCPU = cpuTime()
		b.started.Store(true)
	})
	w := b.work.Add(int64(n))
	if b.maxWork > 0 && w > b.maxWork {
		b.stop(fmt.Sprintf("after %d units of work (-limits.work)", b.maxWork))
		return false
	}
	if next := b.nextLook.Load(); w >= next && b.nextLook.CompareAndSwap(next, w+checkEvery) {
		return b.look()
	}
	return true
}

// Exhausted reports whether the budget ran out, after looking at the clock
// and the heap.
func (b *Budget) Exhausted() bool {
	if b == nil {
		return false
	}
	if b.reason.Load() != nil {
		return true
	}
	return b.started.Load() && !b.look() // never spent: nothing to look at
}

// look checks time and memory, and reports whether they still hold.
func (b *Budget) look() bool {
	if b.maxTime > 0 && b.spent() > b.maxTime {
		b.stop(fmt.Sprintf("after %v (-limits.time)", b.maxTime))
		return false
	}
	if b.maxHeap > 0 {
		if live := liveHeap(); live-b.heap0 > b.maxHeap {
			b.stop(fmt.Sprintf("when the live heap grew by more than %d MiB (-limits.mem)", b.maxHeap>>20))
			return false
		}
	}
	return b.reason.Load() == nil
}

// spent returns the time the analysis has taken since its first Spend: the
// lesser of the wall time and the processor time the process used, where
// the latter is known. On a loaded machine (a CI job running go vet beside
// the builds, go vet's own packages in parallel) the wall time of a
// package's analysis grows with the load while its processor time does
// not, and a budget note fails the user's vet run; on many cores the
// analyzers of one package run in parallel and the processor time grows
// faster than the wall time. An analysis that really does not end spends
// both, so it is stopped either way.
func (b *Budget) spent() time.Duration {
	wall := time.Since(b.start)
	if !b.hasCPU {
		return wall
	}
	cpu, ok := cpuTime()
	if !ok {
		return wall
	}
	return min(wall, cpu-b.cpu0)
}

func (b *Budget) stop(why string) {
	b.reason.CompareAndSwap(nil, &why)
}

// Reason says why the budget ran out, or is empty.
func (b *Budget) Reason() string {
	if b == nil {
		return ""
	}
	if r := b.reason.Load(); r != nil {
		return *r
	}
	return ""
}

// Work returns the units of work spent so far.
func (b *Budget) Work() int64 {
	if b == nil {
		return 0
	}
	return b.work.Load()
}

// Skip records what an analysis left out of the package, for the limits
// check's note; the same description is recorded once.
func (b *Budget) Skip(what string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.Contains(b.skips, what) {
		b.skips = append(b.skips, what)
	}
}

// Skipped returns what the analyses left out, sorted.
func (b *Budget) Skipped() []string {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := slices.Clone(b.skips)
	slices.Sort(out)
	return out
}

// liveHeap returns the bytes of heap that the last garbage collection
// found live.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
