package shim

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// tracePath is the trace the package's tests record into: TestMain turns
// recording on before any test runs, as the shim's init does for a
// program started with PRECOG_TRACE.
var tracePath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "shimtest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tracePath = filepath.Join(dir, "trace")
	if err := openTrace(tracePath, "", 0); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// The tests record their own goroutines' stack variables too
	// (TestStackNotRecorded turns the filter on for itself).
	os.Setenv(plan.StacksEnv, "1")
	enable()
	before := runtime.NumGoroutine()
	code := m.Run()
	if code == 0 {
		if n := settledGoroutines(before); n > before {
			fmt.Fprintf(os.Stderr, "leaked goroutines: %d at the start, %d at the end\n", before, n)
			code = 1
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// settledGoroutines waits up to a second for the number of goroutines to
// drop to want and returns the last count.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(time.Second); n > want && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	return n
}

// readTrace reads every event of the trace at path, in file order. It
// fails the test if the trace is damaged, unless broken is allowed.
func readTrace(t testing.TB, path string) []trace.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var evs []trace.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return evs
		}
		if err != nil {
			t.Fatalf("after %d events: %v", len(evs), err)
		}
		evs = append(evs, ev)
	}
}

// recorded runs f on a goroutine of its own, forked at site, and returns
// the events that goroutine recorded, in order.
func recorded(t *testing.T, site uint32, f func()) []trace.Event {
	t.Helper()
	from := seqs.n.Load()
	id := Go(site)
	done := make(chan struct{})
	go func() {
		Begin(id)
		defer close(done) // after End: the parent reads the trace once done is closed
		defer End()
		f()
	}()
	<-done
	return goroutineEvents(since(readTrace(t, tracePath), from), id)
}

// goroutineEvents returns the events of logical goroutine id, in order.
func goroutineEvents(evs []trace.Event, id uint64) []trace.Event {
	var out []trace.Event
	for _, ev := range evs {
		if ev.Goroutine == id {
			out = append(out, ev)
		}
	}
	return out
}

// siteEvents returns the events recorded at sites in [lo, hi).
func siteEvents(evs []trace.Event, lo, hi uint32) []trace.Event {
	var out []trace.Event
	for _, ev := range evs {
		if ev.Site >= lo && ev.Site < hi {
			out = append(out, ev)
		}
	}
	return out
}

// since returns the events of evs recorded after the sync event with seq
// from: every event of a goroutine that began after it. Tests take from
// before their first shim call and look only at their own events, so that
// they can run again in the same process (go test -count).
func since(evs []trace.Event, from uint64) []trace.Event {
	var out []trace.Event
	for _, ev := range evs {
		if ev.Seq > from {
			out = append(out, ev)
		}
	}
	return out
}

// nextTestID returns the logical id that TestStart will give the next
// goroutine it adopts for the test called name.
func nextTestID(name string) uint64 {
	states.mu.Lock()
	defer states.mu.Unlock()
	return testID(name, states.tests[name])
}

// kindsString lists the kinds of evs, leaving out GCEpoch, which a
// collection may put anywhere.
func kindsString(evs []trace.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		if ev.Kind == trace.EvGCEpoch {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(ev.Kind.String())
	}
	return b.String()
}
