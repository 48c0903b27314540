package shim

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/precog-dev/precog/shim/trace"
)

// TestChanOrder: the sends of many goroutines on one channel, most of
// them blocking, are recorded in the order the channel took them: the
// goroutine of the k-th EvChanSend sent the k-th value received, and the
// k-th EvChanRecv is the k-th receive (hb pairs them so).
func TestChanOrder(t *testing.T) {
	const base = 9300
	const n = 300
	from := seqs.n.Load()
	ch := make(chan uint64, 2)
	var wg sync.WaitGroup
	for range n {
		id := Go(base + 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			Begin(id)
			defer End()
			Send(base+2, ch, id)
		}()
	}
	var got []uint64
	for range n {
		got = append(got, Recv(base+3, ch))
	}
	wg.Wait()
	var sent []uint64
	recvs := 0
	evs := siteEvents(since(readTrace(t, tracePath), from), base+2, base+4)
	trace.Sort(evs) // the reader returns each goroutine's batch in turn
	for _, ev := range evs {
		switch ev.Kind {
		case trace.EvChanSend:
			sent = append(sent, ev.Goroutine)
		case trace.EvChanRecv:
			recvs++
		}
	}
	if recvs != n {
		t.Fatalf("recorded %d receives, want %d", recvs, n)
	}
	if !slices.Equal(sent, got) {
		k := 0
		for k < len(sent) && k < len(got) && sent[k] == got[k] {
			k++
		}
		t.Errorf("send %d of %d was recorded for goroutine %d, but the value received %d-th came from goroutine %d", k, len(sent), sent[min(k, len(sent)-1)], k, got[min(k, len(got)-1)])
	}
}

// TestChanLocksCleaned: the lock entries of channels that were collected
// go away.
func TestChanLocksCleaned(t *testing.T) {
	const n = 1000
	var keys []uintptr
	chans := make([]chan int, n)
	for i := range chans {
		chans[i] = make(chan int, 1)
		Send(9400, chans[i], i)
		_ = Recv(9401, chans[i])
		keys = append(keys, uintptr(ChanAddr(chans[i])))
	}
	left := func() (m int) {
		for _, k := range keys {
			if _, ok := chanLocks.Load(k); ok {
				m++
			}
		}
		return m
	}
	if m := left(); m != n {
		t.Fatalf("%d of %d live channels have lock entries", m, n)
	}
	runtime.KeepAlive(chans)
	chans = nil
	deadline := time.Now().Add(5 * time.Second)
	for left() > n/10 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if m := left(); m > n/10 {
		t.Errorf("%d of %d collected channels still have lock entries", m, n)
	}
}
