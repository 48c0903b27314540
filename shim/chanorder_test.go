package shim

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
	"weak"

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

// TestChanElems: a send and the receive that got its element record the
// same fingerprint (elem), plain or in a select, and different elements
// of the usual shapes record different ones, never 0.
func TestChanElems(t *testing.T) {
	const base = 9500
	from := seqs.n.Load()
	ch := make(chan *int, 4)
	xs := []*int{new(int), new(int), nil}
	for _, x := range xs {
		Send(base, ch, x)
	}
	for i := range xs {
		if i == 1 {
			v, ok := <-ch
			SelectRecvElem(base+2, 0, ChanAddr(ch), ok, ElemOf(&v)) // as rt.Got records a select's receive
			continue
		}
		_ = Recv(base+1, ch)
	}
	SelectSendElem(base+2, 0, ChanAddr(ch), ElemOf(&xs[0]))
	var sent, got, sel []uint64
	for _, ev := range siteEvents(since(readTrace(t, tracePath), from), base, base+3) {
		switch ev.Kind {
		case trace.EvChanSend:
			sent = append(sent, ev.Peer)
		case trace.EvChanRecv:
			got = append(got, ev.Peer)
		case trace.EvSelect:
			sel = append(sel, ev.Peer)
		}
	}
	if len(sent) != 3 || len(got) != 2 || len(sel) != 2 {
		t.Fatalf("recorded %d sends, %d receives, %d selects; want 3, 2, 2", len(sent), len(got), len(sel))
	}
	if sent[0] != got[0] || sent[2] != got[1] || sent[1] != sel[0] || sent[0] != sel[1] {
		t.Errorf("sends recorded elems %v, receives %v, selects %v", sent, got, sel)
	}
	if sent[0] == sent[1] || sent[1] == sent[2] || sent[0] == 0 || sent[2] == 0 {
		t.Errorf("three elements recorded elems %v", sent)
	}

	a, b := any(xs[0]), any(xs[1])
	s1, s2 := "ab", "abc"
	f, tr := false, true
	var z1, z2 struct{}
	pairs := []struct {
		name   string
		x, y   uint32
		differ bool
	}{
		{"interfaces", ElemOf(&a), ElemOf(&b), true},
		{"strings", ElemOf(&s1), ElemOf(&s2), true},
		{"bools", ElemOf(&f), ElemOf(&tr), true},
		{"empty structs", ElemOf(&z1), ElemOf(&z2), false},
	}
	for _, p := range pairs {
		if p.x == 0 || p.y == 0 || (p.x != p.y) != p.differ {
			t.Errorf("%s: elems %d and %d", p.name, p.x, p.y)
		}
	}
}

// TestChanLockNotTakenOver: a channel made at the address of a collected
// channel whose cleanup has not run yet gets an entry of its own, not the
// collected one's (which that cleanup would remove under it).
func TestChanLockNotTakenOver(t *testing.T) {
	ch := make(chan int, 1)
	k := uintptr(ChanAddr(ch))
	dead := new(byte)
	stale := &chanLock{ch: weak.Make(dead)}
	dead = nil
	for stale.ch.Value() != nil {
		runtime.GC()
	}
	chanLocks.Store(k, stale)
	l := chanLockOf(ChanAddr(ch))
	if l == stale || l.ch.Value() != (*byte)(ChanAddr(ch)) {
		t.Fatal("the channel took the collected channel's entry")
	}
	if got, _ := chanLocks.Load(k); got != l {
		t.Fatal("the channel's entry is not in chanLocks")
	}
	if chanLockOf(ChanAddr(ch)) != l {
		t.Fatal("a second operation got another entry")
	}
	if !weakHandle {
		t.Error("weak.Pointer is not laid out as pointsTo reads it: every channel operation takes Value's slower path")
	}
	runtime.KeepAlive(ch)
}
