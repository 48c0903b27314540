// Package prog is the program of the shim's crash tests (shim/crash_test.go):
// hand-instrumented code that records known sequences of events and then
// dies in one of the ways a test process dies. The crash tests build it
// once, as a test binary, with the shim injected as its own module, run it
// with PRECOG_TRACE set and read the trace it leaves.
//
// A known sequence at site s is n Write events of values 0, 1, ..., n-1.
// CRASH_MODE picks what happens before m.Run: panic, mapwrites, deadlock
// or exit. Without it the tests run: TestHang blocks (for -test.timeout),
// TestDone and TestParallel pass,
// TestBusy records until killed.
package prog

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
	"unsafe"

	precog_shim "github.com/precog-dev/precog/shim"
)

// Sites.
const (
	siteMain   = 1   // the main goroutine's (or the test's) known sequence
	siteFork   = 2   // the go statement of the worker
	siteWorker = 3   // the worker's known sequence
	siteMap    = 4   // map writes
	siteChan   = 5   // make(chan)
	siteRecv   = 6   // receives
	siteBusy   = 100 // TestBusy's worker k records at siteBusy+k
)

// known is how long the known sequences are: long enough to fill several
// chunks and more than one segment of the mapped file.
const known = 20000

// busyWorkers is how many goroutines TestBusy runs; each prints its
// progress every busyStep events.
const (
	busyWorkers = 4
	busyStep    = 4096
)

var slots [busyWorkers + 2]struct {
	v uint64
	_ [56]byte
}

// sequence records the known sequence of n writes at site.
func sequence(site uint32, slot int, n int) {
	for i := 0; i < n; i++ {
		slots[slot].v = uint64(i)
		precog_shim.Write(site, unsafe.Pointer(&slots[slot].v), uint64(i))
	}
}

// worker starts fn as an instrumented goroutine, as the instrumenter
// rewrites a go statement.
func worker(fn func()) {
	id := precog_shim.Go(siteFork)
	go func() {
		precog_shim.Begin(id)
		defer precog_shim.End()
		fn()
	}()
}

func TestMain(m *testing.M) {
	mode := os.Getenv("CRASH_MODE")
	if mode == "" {
		os.Exit(m.Run())
	}
	sequence(siteMain, 0, known)
	switch mode {
	case "panic":
		// A panic in a goroutine: the deferred End runs, then the process
		// dies with exit status 2.
		worker(func() {
			sequence(siteWorker, 1, known)
			panic("boom")
		})
		time.Sleep(time.Minute)
	case "mapwrites":
		// Two goroutines write one map until the runtime notices: fatal
		// error: concurrent map writes. Each records a write of its counter
		// before every map write, so both are recording when it dies.
		m := map[int]int{}
		for k := 0; k < 2; k++ {
			worker(func() {
				for i := 0; ; i++ {
					slots[1+k].v = uint64(i)
					precog_shim.Write(siteWorker+uint32(k)*10, unsafe.Pointer(&slots[1+k].v), uint64(i))
					precog_shim.MW(siteMap, m)[i%64] = i
				}
			})
		}
		time.Sleep(time.Minute)
	case "deadlock":
		// Every goroutine blocks on a channel nobody sends on: fatal error:
		// all goroutines are asleep - deadlock!
		ch := precog_shim.MakeChan(siteChan, make(chan int))
		var started sync.WaitGroup
		started.Add(1)
		worker(func() {
			sequence(siteWorker, 1, known)
			started.Done()
			precog_shim.Recv(siteRecv, ch)
		})
		started.Wait()
		precog_shim.Recv(siteRecv, ch)
	case "exit":
		done := make(chan struct{})
		worker(func() {
			sequence(siteWorker, 1, known)
			close(done)
		})
		<-done
		os.Exit(3)
	}
	fmt.Fprintln(os.Stderr, "crash mode", mode, "did not crash")
	os.Exit(9)
}

// TestHang records known sequences in the test and a worker, prints
// "ready" and waits, so that the testing package's alarm (-test.timeout)
// panics.
func TestHang(t *testing.T) {
	precog_shim.TestStart(t)
	sequence(siteMain, 0, known)
	done := make(chan struct{})
	worker(func() {
		sequence(siteWorker, 1, known)
		close(done)
	})
	<-done
	fmt.Println("ready")
	time.Sleep(time.Hour)
}

// TestDone records the known sequences in the test and a worker and
// passes.
func TestDone(t *testing.T) {
	precog_shim.TestStart(t)
	sequence(siteMain, 0, known)
	done := make(chan struct{})
	worker(func() {
		sequence(siteWorker, 1, known)
		close(done)
	})
	<-done
}

// TestParallel runs busyWorkers workers that each record a known sequence
// at siteBusy+k at the same time, and passes.
func TestParallel(t *testing.T) {
	precog_shim.TestStart(t)
	var wg sync.WaitGroup
	for k := 0; k < busyWorkers; k++ {
		wg.Add(1)
		worker(func() {
			defer wg.Done()
			sequence(siteBusy+uint32(k), k, known)
		})
	}
	wg.Wait()
}

// TestSyncing runs busyWorkers workers that each make known atomic adds,
// sync events that take a seq each, with a write after each, and passes.
func TestSyncing(t *testing.T) {
	precog_shim.TestStart(t)
	var wg sync.WaitGroup
	for k := 0; k < busyWorkers; k++ {
		wg.Add(1)
		worker(func() {
			defer wg.Done()
			for i := 0; i < known; i++ {
				precog_shim.AtomicAddUint64(siteBusy+uint32(k), &slots[k].v, 1)
				precog_shim.Write(siteBusy+uint32(k), unsafe.Pointer(&slots[k].v), uint64(i))
			}
		})
	}
	wg.Wait()
}

// TestBusy runs workers that record without pause, each printing its
// count after every busyStep events ("k n": worker k recorded its events
// 0 to n-1), until the process is killed.
func TestBusy(t *testing.T) {
	precog_shim.TestStart(t)
	for k := 0; k < busyWorkers; k++ {
		worker(func() {
			for i := 0; ; i++ {
				slots[k].v = uint64(i)
				precog_shim.Write(siteBusy+uint32(k), unsafe.Pointer(&slots[k].v), uint64(i))
				if (i+1)%busyStep == 0 {
					fmt.Println(k, i+1)
				}
			}
		})
	}
	time.Sleep(time.Hour)
}
