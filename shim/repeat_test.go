package shim

import (
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/precog-dev/precog/shim/trace"
)

// TestRepeatedReadsNotRecorded: with the repeat filter on, a read that
// repeats a read of the location at the same site by the goroutine, with
// no sync event and no write of it by the goroutine in between, is not
// recorded, through R and RL alike (RL's test without a call included),
// also when a read of the location at another site came between; a read at
// another site, after a write of the location (at every site), after a
// sync event, or of another location is; and with the filter off every
// read is.
func TestRepeatedReadsNotRecorded(t *testing.T) {
	const base = 9200
	x := new(int)
	y := apart(func() *int { return new(int) }, func(y *int) uintptr { return uintptr(unsafe.Pointer(y)) }, uintptr(unsafe.Pointer(x)), base+1, base+2)
	var mu sync.Mutex
	type ev struct {
		kind trace.Kind
		site uint32
	}
	run := func(filter bool) (got []ev) {
		saved := repeatFilter
		repeatFilter = filter
		defer func() { repeatFilter = saved }()
		evs := recorded(t, base, func() {
			var l Local
			_ = *R(base+1, x)
			_ = *R(base+1, x)      // repeat: left out
			_ = *RL(&l, base+1, x) // repeat through the Local: left out
			_ = *RL(&l, base+1, x) // again, the Local holding the state: left out
			_ = *R(base+1, y)      // another location
			_ = *RL(&l, base+2, x) // another site
			_ = *RL(&l, base+1, x) // repeat, a read at another site between: left out
			W(base+3, x, 1)
			_ = *RL(&l, base+1, x) // after a write of x
			_ = *RL(&l, base+2, x) // after a write of x, at the other site too
			_ = *RL(&l, base+1, x) // repeat: left out
			Lock(base+4, &mu)
			_ = *RL(&l, base+1, x) // after a sync event
			Unlock(base+5, &mu)
		})
		for _, e := range evs {
			if e.Site > base && e.Site < base+10 {
				got = append(got, ev{e.Kind, e.Site - base})
			}
		}
		return got
	}
	r, w, lk, un := trace.EvRead, trace.EvWrite, trace.EvLock, trace.EvUnlock
	want := []ev{{r, 1}, {r, 1}, {r, 2}, {w, 3}, {r, 1}, {r, 2}, {lk, 4}, {r, 1}, {un, 5}}
	if got := run(true); !slices.Equal(got, want) {
		t.Errorf("with the filter, recorded %v, want %v", got, want)
	}
	all := []ev{{r, 1}, {r, 1}, {r, 1}, {r, 1}, {r, 1}, {r, 2}, {r, 1}, {w, 3}, {r, 1}, {r, 2}, {r, 1}, {lk, 4}, {r, 1}, {un, 5}}
	if got := run(false); !slices.Equal(got, all) {
		t.Errorf("without the filter, recorded %v, want %v", got, all)
	}
}

// TestRepeatedMapReadsNotRecorded: a map read that repeats the goroutine's
// read of the map at the same site is left out as a read is, through
// MR and MRL (mapRead) alike; a map read at another site, after a map write by the
// goroutine, after a sync event, or of another map is recorded, and so is
// every map iteration and write; with the filter off every map read is.
func TestRepeatedMapReadsNotRecorded(t *testing.T) {
	const base = 9300
	header := func(m map[int]int) uintptr { return uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&m))) }
	m := map[int]int{1: 1}
	n := apart(func() map[int]int { return map[int]int{2: 2} }, header, header(m), base+1, base+2)
	var mu sync.Mutex
	type ev struct {
		kind trace.Kind
		site uint32
	}
	run := func(filter, local bool) (got []ev) {
		saved := repeatFilter
		repeatFilter = filter
		defer func() { repeatFilter = saved }()
		evs := recorded(t, base, func() {
			var l Local
			mr := MR[map[int]int]
			if local { // every map read through the body's Local (mapRead)
				mr = func(site uint32, m map[int]int) map[int]int { return MRL(&l, site, m) }
			}
			_ = mr(base+1, m)[1]
			_ = mr(base+1, m)[2]      // repeat, another key: left out
			_ = MRL(&l, base+1, m)[1] // repeat through the Local: left out
			_ = mr(base+1, n)[2]      // another map
			_ = mr(base+2, m)[1]      // another site
			_ = mr(base+1, m)[1]      // repeat, a read at another site between: left out
			for range MI(base+3, m) { // iterations are recorded
			}
			for range MI(base+3, m) {
			}
			MW(base+4, m)[3] = 3
			_ = mr(base+1, m)[1] // after a write of m
			_ = mr(base+1, m)[1] // repeat: left out
			Lock(base+5, &mu)
			_ = mr(base+1, m)[1] // after a sync event
			Unlock(base+6, &mu)
		})
		for _, e := range evs {
			if e.Site > base && e.Site < base+10 {
				got = append(got, ev{e.Kind, e.Site - base})
			}
		}
		return got
	}
	r, it, w, lk, un := trace.EvMapRead, trace.EvMapIter, trace.EvMapWrite, trace.EvLock, trace.EvUnlock
	want := []ev{{r, 1}, {r, 1}, {r, 2}, {it, 3}, {it, 3}, {w, 4}, {r, 1}, {lk, 5}, {r, 1}, {un, 6}}
	all := []ev{{r, 1}, {r, 1}, {r, 1}, {r, 1}, {r, 2}, {r, 1}, {it, 3}, {it, 3}, {w, 4}, {r, 1}, {r, 1}, {lk, 5}, {r, 1}, {un, 6}}
	for _, local := range []bool{false, true} {
		if got := run(true, local); !slices.Equal(got, want) {
			t.Errorf("with the filter (MRL %v), recorded %v, want %v", local, got, want)
		}
		if got := run(false, local); !slices.Equal(got, all) {
			t.Errorf("without the filter (MRL %v), recorded %v, want %v", local, got, all)
		}
	}
}

// TestReadSlotSpread: the words at one offset of consecutive pages (the
// headers of page-aligned nodes, read in turn by a tree walk) fall into
// different slots of the repeat filter's table, and so do consecutive
// words, and one word read at consecutive sites; with the low bits of the
// address as the index, the pages' words all shared one slot and evicted
// each other, and with the address alone the sites did.
func TestReadSlotSpread(t *testing.T) {
	var g gstate
	const n = 8
	for _, stride := range []uintptr{8, 4096, 8192, 1 << 16} {
		slots := make(map[*readSlot]bool)
		for i := range uintptr(n) {
			slots[g.readSlot(0xc000100018+i*stride, 300)] = true
		}
		if len(slots) < n-1 {
			t.Errorf("%d words %d bytes apart fall into %d slots, want at least %d", n, stride, len(slots), n-1)
		}
	}
	slots := make(map[*readSlot]bool)
	for i := range uint32(n) {
		slots[g.readSlot(0xc000100018, 300+i)] = true
	}
	if len(slots) < n {
		t.Errorf("one word read at %d sites falls into %d slots, want %d", n, len(slots), n)
	}
}

// TestIndexReadOrdersLocation: a location read at an index site (RI, RIL)
// is ordered for the rest of the goroutine's stretch: a read of it repeats
// only the goroutine's last read of it, at the same site, so a loop that
// tests a bound at one site and slices with it at another records both
// reads in every iteration (cherokee's worker, whose con-index validation
// forces the write between them in the last iteration), while another
// location read in turn at two sites is left out from the second iteration
// on; the order ends at the goroutine's next sync event.
func TestIndexReadOrdersLocation(t *testing.T) {
	const base = 9400
	x := new(int)
	// y shares no slot and no stamp with x at these sites: a collision
	// would only record more, but the test counts.
	slots := func(p *int, sites ...uint32) (out []uint64) {
		h := addrHash(uintptr(unsafe.Pointer(p)))
		for _, s := range sites {
			out = append(out, (h>>(64-readSlotBits)^uint64(base+s))&(readSlots-1))
		}
		return append(out, readSlots+h>>(64-writeSlotBits))
	}
	var y *int
	for y = new(int); slices.ContainsFunc(slots(y, 3, 4), func(s uint64) bool { return slices.Contains(slots(x, 1, 2, 6), s) }); {
		y = new(int)
	}
	var mu sync.Mutex
	type ev struct {
		kind trace.Kind
		site uint32
	}
	evs := recorded(t, base, func() {
		var l Local
		for range 3 {
			_ = *RL(&l, base+1, x)  // the bound's test
			_ = *RIL(&l, base+2, x) // the slice bound
			_ = *RIL(&l, base+2, x) // nothing between: left out
			_ = *RL(&l, base+3, y)
			_ = *RL(&l, base+4, y) // y is not ordered: left out from the second iteration on
		}
		Lock(base+5, &mu)
		_ = *R(base+1, x)
		_ = *R(base+6, x)
		_ = *R(base+1, x) // x is not ordered in this stretch: left out
		_ = *RI(base+2, x)
		_ = *R(base+1, x) // ordered again: recorded
		Unlock(base+7, &mu)
	})
	var got []ev
	for _, e := range evs {
		if e.Site > base && e.Site < base+10 {
			got = append(got, ev{e.Kind, e.Site - base})
		}
	}
	r := trace.EvRead
	want := []ev{{r, 1}, {r, 2}, {r, 3}, {r, 4}, {r, 1}, {r, 2}, {r, 1}, {r, 2},
		{trace.EvLock, 5}, {r, 1}, {r, 6}, {r, 2}, {r, 1}, {trace.EvUnlock, 7}}
	if !slices.Equal(got, want) {
		t.Errorf("recorded %v, want %v", got, want)
	}
}

// apart returns a value that newValue makes whose read slot at the first of
// sites differs from addr's at every one of sites: the filter's table is
// direct-mapped, and a read of another location in a repeat's slot makes
// the repeat recorded, which is right (the filter may only record more)
// but not what the tests count. One in readSlots collides.
func apart[T any](newValue func() T, addrOf func(T) uintptr, addr uintptr, sites ...uint32) T {
	slot := func(a uintptr, site uint32) uint64 {
		return (addrHash(a)>>(64-readSlotBits) ^ uint64(site)) & (readSlots - 1)
	}
	var kept []T // the colliding ones stay alive, so that none is reused
	for {
		v := newValue()
		collides := false
		for _, s := range sites {
			collides = collides || slot(addrOf(v), sites[0]) == slot(addr, s)
		}
		if !collides {
			return v
		}
		kept = append(kept, v)
	}
}
