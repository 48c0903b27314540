package shim

import (
	"cmp"
	"slices"
	"testing"
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// TestHanded checks a literal handed to code that runs it on a goroutine
// started before the handing (a plain go statement: the shim adopts it):
// the caller records its first handing at the site (EvMark), the first run
// on the other goroutine records EvAfter naming the caller and the site,
// once; a run on the caller's own goroutine records nothing; a handle
// nobody handed (caller 0) gives nothing.
func TestHanded(t *testing.T) {
	const site = 2341
	var x int
	runner := make(chan func())
	stopped := make(chan struct{})
	go func() { // started before the handing, as a dependency's worker
		defer close(stopped)
		for f := range runner {
			f()
		}
	}()
	evs := recorded(t, site-1, func() {
		var h Handle
		for range 2 {
			Write(site+1, unsafe.Pointer(&x), 0)
			f := Hand(&h, site, func() {
				Handed(&h, site)
				Read(site+2, unsafe.Pointer(&x))
			})
			runner <- f
			runner <- f
			f() // on the caller: no event
		}
		var none Handle
		runner <- func() { Handed(&none, site+3) }
		close(runner)
		<-stopped
	})
	all := since(readTrace(t, tracePath), evs[0].Seq-1)
	marks := 0
	for _, ev := range evs {
		if ev.Kind == trace.EvMark && ev.Site == site {
			marks++
		}
		if ev.Kind == trace.EvAfter {
			t.Errorf("the caller recorded %v, want no EvAfter on its own runs", ev)
		}
	}
	if marks != 1 {
		t.Errorf("%d marks at the site, want 1 (the first handing)", marks)
	}
	// The runner's: the only goroutine but the caller that ran the
	// literal (the runner takes no id of its own here, which would
	// make precog's checks on this test see the shim's state of the
	// goroutine it adopts as shared with the literal's runs).
	var afters []trace.Event
	for _, ev := range all {
		if ev.Kind == trace.EvAfter && ev.Site >= site && ev.Site <= site+3 {
			afters = append(afters, ev)
		}
	}
	if len(afters) != 1 || afters[0].Goroutine == evs[0].Goroutine || afters[0].Site != site || afters[0].Peer != evs[0].Goroutine {
		t.Errorf("EvAfter events at the test's sites %v, want one, on the runner, naming the caller %d at site %d", afters, evs[0].Goroutine, site)
	}
}

// BenchmarkHandedComparator is mechanism 1's cost on a hot comparator
// (raft's slices.SortFunc): a literal handed to slices.SortFunc, as the
// rewriter writes it (Handed first), against the bare literal. Both sort
// the same 1,000 ints the same way; the difference over n·log n calls is
// Handed's atomic load and goroutine lookup on the caller's goroutine.
func BenchmarkHandedComparator(b *testing.B) {
	base := make([]int, 1000)
	for i := range base {
		base[i] = (i * 7919) % 1000
	}
	xs := make([]int, len(base))
	cur()
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			copy(xs, base)
			slices.SortFunc(xs, func(a, b int) int { return cmp.Compare(a, b) })
		}
	})
	b.Run("handed", func(b *testing.B) {
		var h Handle
		for b.Loop() {
			copy(xs, base)
			slices.SortFunc(xs, Hand(&h, 990001, func(a, b int) int { Handed(&h, 990001); return cmp.Compare(a, b) }))
		}
	})
}

// BenchmarkHandedCaller is one call of Handed on the goroutine that handed
// the literal: what a comparator's every call pays.
func BenchmarkHandedCaller(b *testing.B) {
	var h Handle
	h.hand(990002)
	for b.Loop() {
		Handed(&h, 990002)
	}
}
