package shim

import (
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// poll calls cond the way testify's Eventually does (assert/assertions.go,
// v1.11.1): each run on a new goroutine, the next one only after the
// previous one's result came back on a channel, until one returns true.
func poll(cond func() bool) {
	ch := make(chan bool, 1)
	for {
		go func() { ch <- cond() }()
		if <-ch {
			return
		}
	}
}

// TestCondRuns checks the events of a condition run three times on
// goroutines nobody forked: the caller forks the first run as a task of
// the call's group, each run begins as the task forked for it and forks
// the next before it ends, and the caller's join of the group comes after
// the last run's end. The wrapper is named in a directory "assert", which
// testify leaves out of an assertion's Error Trace.
func TestCondRuns(t *testing.T) {
	const site = 2301
	var file string
	var x int
	var runs []uint64 // logical ids of the runs, in order
	evs := recorded(t, site-1, func() {
		n := 0
		cond := CondBool(site, func() bool {
			_, file, _, _ = runtime.Caller(1)
			Write(site+2, unsafe.Pointer(&x), 0)
			n++
			return n == 3
		})
		poll(cond)
		CondWaited(site+1, true)
	})
	if d := filepath.Base(filepath.Dir(file)); d != "assert" {
		t.Errorf("the condition's caller is in %s, directory %q, want one named assert", file, d)
	}
	all := since(readTrace(t, tracePath), evs[0].Seq-1)
	var group uint64
	var forks []trace.Event
	for _, ev := range all {
		if ev.Kind == trace.EvTaskGo && ev.Site == site {
			forks = append(forks, ev)
			group = ev.Addr
		}
	}
	if len(forks) != 4 {
		t.Fatalf("%d forks of runs, want 4 (the caller's, one per run): %v", len(forks), forks)
	}
	if forks[0].Goroutine != evs[0].Goroutine {
		t.Errorf("first run forked by %d, want the caller %d", forks[0].Goroutine, evs[0].Goroutine)
	}
	for k := 0; k < 3; k++ {
		id := forks[k].Peer
		runs = append(runs, id)
		g := goroutineEvents(all, id)
		if len(g) < 4 || g[0].Kind != trace.EvBegin || g[len(g)-1].Kind != trace.EvEnd {
			t.Fatalf("run %d (%d): events %v, want Begin ... End", k, id, g)
		}
		if f := g[len(g)-2]; f.Kind != trace.EvTaskGo || f.Peer != forks[k+1].Peer || f.Addr != group {
			t.Errorf("run %d's last event before End: %v, want the fork of the next run in group %#x", k, f, group)
		}
		if !hasWrite(g, site+2) {
			t.Errorf("run %d recorded no write of x: %v", k, g)
		}
	}
	last := goroutineEvents(all, runs[2])
	var join *trace.Event
	for i, ev := range evs {
		if ev.Kind == trace.EvTaskWait {
			join = &evs[i]
		}
	}
	if join == nil || join.Addr != group || join.Site != site+1 || join.Seq < last[len(last)-1].Seq {
		t.Errorf("caller's join %v, want a TaskWait of group %#x at site %d after the last run's end %v", join, group, site+1, last[len(last)-1])
	}
}

// TestCondWithGoexit checks that a run of an EventuallyWithT condition
// that leaves by runtime.Goexit (CollectT.FailNow) still ends, and that
// the wrapper passes its argument.
func TestCondWithGoexit(t *testing.T) {
	const site = 2311
	var got []int
	evs := recorded(t, site-1, func() {
		cond := CondWith(site, func(k int) {
			got = append(got, k)
			if k == 0 {
				runtime.Goexit()
			}
		})
		for k := 0; k < 2; k++ {
			done := make(chan struct{})
			go func() {
				defer close(done)
				cond(k)
			}()
			<-done
		}
		CondReturned(site + 1)
	})
	if len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Errorf("the condition got %v, want [0 1]", got)
	}
	all := since(readTrace(t, tracePath), evs[0].Seq-1)
	ends := 0
	for _, ev := range all {
		if ev.Kind == trace.EvTaskGo && ev.Site == site {
			g := goroutineEvents(all, ev.Peer)
			if len(g) > 0 && g[len(g)-1].Kind == trace.EvEnd {
				ends++
			}
		}
	}
	if ends != 2 {
		t.Errorf("%d runs ended, want 2", ends)
	}
}

// TestCondFork checks a condition wrapped late (a call whose message
// arguments follow the condition): the caller forks the first run at
// CondFork, after its read of the message argument, so that the run's
// write of the same variable is ordered after the read; CondFork at
// another site, or with no condition pending, forks nothing; and of two
// pending conditions at one site (the message of one call evaluating
// another), CondFork forks the latest.
func TestCondFork(t *testing.T) {
	const site = 2321
	var pending int
	evs := recorded(t, site-1, func() {
		cond := CondBoolLate(site, func() bool {
			Write(site+2, unsafe.Pointer(&pending), 0)
			pending = 0
			return true
		})
		CondFork(site+5, 0) // another site's: not this condition's fork
		Read(site+3, unsafe.Pointer(&pending))
		msg := CondFork(site, pending)
		poll(cond)
		CondWaited(site+1, true)
		_ = msg

		CondFork(site, 0) // nothing pending: no fork
		outer := CondBoolLate(site+6, func() bool { return true })
		inner := CondBoolLate(site+6, func() bool { return true })
		CondFork(site+6, 0)
		poll(inner)
		CondWaited(site+7, true)
		CondFork(site+6, 0)
		poll(outer)
		CondWaited(site+7, true)
	})
	all := since(readTrace(t, tracePath), evs[0].Seq-1)
	// Indices in the caller's events: an access has no sequence number of
	// its own, it follows the last synchronizing event's.
	read, fork := -1, -1
	forks := 0
	var groups []uint64
	for i, ev := range evs {
		switch {
		case ev.Kind == trace.EvRead && ev.Site == site+3:
			read = i
		case ev.Kind == trace.EvTaskGo && ev.Site == site:
			forks++
			fork = i
		case ev.Kind == trace.EvTaskGo && ev.Site == site+6:
			groups = append(groups, ev.Addr)
		}
	}
	if forks != 1 || read < 0 || fork < read {
		t.Fatalf("caller's events %v: %d forks at the condition's site, the last at %d, its read of the message argument at %d: want one fork, after the read", evs, forks, fork, read)
	}
	run := goroutineEvents(all, evs[fork].Peer)
	if len(run) == 0 || run[0].Kind != trace.EvBegin || !hasWrite(run, site+2) {
		t.Errorf("the first run's events %v, want Begin, then the write", run)
	}
	var waits []uint64
	for _, ev := range evs {
		if ev.Kind == trace.EvTaskWait && ev.Site == site+7 {
			waits = append(waits, ev.Addr)
		}
	}
	if len(groups) != 2 || len(waits) != 2 || groups[0] == groups[1] || groups[0] != waits[0] || groups[1] != waits[1] {
		t.Errorf("nested conditions: forks in groups %#x, joins of %#x; want the inner call's group forked and joined first, then the outer's", groups, waits)
	}
}

func hasWrite(evs []trace.Event, site uint32) bool {
	for _, ev := range evs {
		if ev.Kind == trace.EvWrite && ev.Site == site {
			return true
		}
	}
	return false
}
