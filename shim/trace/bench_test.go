package trace

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
)

// batchSize is the size of the shim's per-goroutine buffers.
const batchSize = 32 << 10

// The Append benchmarks measure one method each, called directly as the
// shim calls it: ns/op is ns per event. The buffer is started anew when
// full, as the shim flushes it. Addresses walk the fields of one object.

func BenchmarkAppendRead(b *testing.B) {
	var e Encoder
	buf := e.StartBatch(make([]byte, 0, batchSize), 1)
	var i uint64
	b.ReportAllocs()
	for b.Loop() {
		if cap(buf)-len(buf) < MaxEventLen {
			buf = e.StartBatch(buf[:0], 1)
		}
		i++
		buf = e.AppendRead(buf, uint32(i&1023), uintptr(0xc000012340+(i&63)*8))
	}
}

func BenchmarkAppendWrite(b *testing.B) {
	var e Encoder
	buf := e.StartBatch(make([]byte, 0, batchSize), 1)
	var i uint64
	b.ReportAllocs()
	for b.Loop() {
		if cap(buf)-len(buf) < MaxEventLen {
			buf = e.StartBatch(buf[:0], 1)
		}
		i++
		buf = e.AppendWrite(buf, uint32(i&1023), uintptr(0xc000012340+(i&63)*8), i&255)
	}
}

func BenchmarkAppendLock(b *testing.B) {
	var e Encoder
	buf := e.StartBatch(make([]byte, 0, batchSize), 1)
	var i uint64
	b.ReportAllocs()
	for b.Loop() {
		if cap(buf)-len(buf) < MaxEventLen {
			buf = e.StartBatch(buf[:0], 1)
		}
		i++
		buf = e.AppendLock(buf, 3*i, uint32(i&1023), uintptr(0xc000012340))
	}
}

// BenchmarkPutRead is PutRead, the shim's encoder of a read that is not
// PutShortRead's three bytes, on reads that jump between objects of a
// 64 MiB heap, so that their address differences take one to four bytes.
// ns/op is ns per read.
func BenchmarkPutRead(b *testing.B) {
	var e Encoder
	buf := e.StartBatch(make([]byte, 0, batchSize), 1)
	r := rand.New(rand.NewPCG(1, 2))
	var addrs [64]uintptr
	for i := range addrs {
		addrs[i] = uintptr(0xc000000000 + r.Uint64N(1<<(10+i%4*5))&^7)
	}
	var i uint64
	b.ReportAllocs()
	for b.Loop() {
		if cap(buf)-len(buf) < MaxEventLen+Window {
			buf = e.StartBatch(buf[:0], 1)
		}
		i++
		w := (*[Window]byte)(buf[len(buf) : len(buf)+Window])
		buf = buf[:len(buf)+e.PutRead(w, uint32(i&1023), addrs[i&63])]
	}
}

// BenchmarkPutWrite is PutWrite, the shim's encoder of a write that is not
// PutShortWrite's four bytes, on writes that jump between objects of a
// 64 MiB heap, as BenchmarkPutRead's reads do, of values one to five
// bytes long. ns/op is ns per write.
func BenchmarkPutWrite(b *testing.B) {
	var e Encoder
	buf := e.StartBatch(make([]byte, 0, batchSize), 1)
	r := rand.New(rand.NewPCG(1, 2))
	var addrs [64]uintptr
	var values [64]uint64
	for i := range addrs {
		addrs[i] = uintptr(0xc000000000 + r.Uint64N(1<<(10+i%4*5))&^7)
		values[i] = r.Uint64N(1 << (7 + i%5*7))
	}
	var i uint64
	b.ReportAllocs()
	for b.Loop() {
		if cap(buf)-len(buf) < MaxEventLen+Window {
			buf = e.StartBatch(buf[:0], 1)
		}
		i++
		w := (*[Window]byte)(buf[len(buf) : len(buf)+Window])
		buf = buf[:len(buf)+e.PutWrite(w, uint32(i&1023), addrs[i&63], values[i&63])]
	}
}

// BenchmarkPutSyncAddr is PutSyncAddr, the shim's encoder of sync events,
// on a goroutine's locks, unlocks, atomic loads and stores, sends and
// WaitGroup adds of objects of a 64 MiB heap, other goroutines taking up
// to 300 seqs in between, at sites below 4096. ns/op is ns per event.
func BenchmarkPutSyncAddr(b *testing.B) {
	var e Encoder
	buf := e.StartBatch(make([]byte, 0, batchSize), 1)
	r := rand.New(rand.NewPCG(1, 2))
	kinds := [8]Kind{EvLock, EvAtomicLoad, EvUnlock, EvChanSend, EvAtomicStore, EvLock, EvWGAdd, EvUnlock}
	var addrs [64]uintptr
	var steps [64]uint64
	var sites [64]uint32
	for i := range addrs {
		addrs[i] = uintptr(0xc000000000 + r.Uint64N(1<<(10+i%4*5))&^7)
		steps[i] = r.Uint64N(300)
		sites[i] = r.Uint32N(4096)
	}
	var i, seq uint64
	b.ReportAllocs()
	for b.Loop() {
		if cap(buf)-len(buf) < MaxEventLen+Window {
			buf = e.StartBatch(buf[:0], 1)
		}
		i++
		k := kinds[i&7]
		if k != EvAtomicLoad {
			seq += 1 + steps[i&63]
		}
		w := (*[Window]byte)(buf[len(buf) : len(buf)+Window])
		buf = buf[:len(buf)+e.PutSyncAddr(w, k, seq, sites[i&63], addrs[i&63], i&255)]
	}
}

// workload is a synthetic but plausible event stream of one goroutine:
// critical sections over objects of a 64 MiB heap, each a Lock, one to
// eight accesses mostly to fields of the locked object, and an Unlock,
// with function entries and exits and channel operations in between; other
// goroutines take a few seqs between two of its sync events.
func workload(n int) []Event {
	rng := rand.New(rand.NewPCG(1, 2))
	const heap = 0xc000000000
	objs := make([]uint64, 4096)
	for i := range objs {
		objs[i] = heap + rng.Uint64N(64<<20)&^7
	}
	var evs []Event
	seq := uint64(0)
	sync := func(k Kind, site uint32, addr uint64) {
		seq += 1 + rng.Uint64N(16)
		evs = append(evs, Event{Kind: k, Seq: seq, Site: site, Addr: addr})
	}
	for len(evs) < n {
		obj := objs[rng.IntN(len(objs))]
		if rng.IntN(10) == 0 {
			evs = append(evs, Event{Kind: EvFuncEnter, Site: rng.Uint32N(2000) + 1})
		}
		sync(EvLock, rng.Uint32N(2000)+1, obj)
		for range 1 + rng.IntN(8) {
			addr := obj + 8 + rng.Uint64N(8)*8
			if rng.IntN(5) == 0 {
				addr = objs[rng.IntN(len(objs))] + rng.Uint64N(8)*8
			}
			site := rng.Uint32N(2000) + 1
			if rng.IntN(3) == 0 {
				var v uint64
				switch rng.IntN(4) {
				case 0, 1:
					v = rng.Uint64N(100) // counters, lengths, small enums
				case 2:
					v = rng.Uint64N(2) // pointer-shaped: nil or not
				default:
					v = rng.Uint64N(1 << 32)
				}
				evs = append(evs, Event{Kind: EvWrite, Site: site, Addr: addr, Value: v})
			} else {
				evs = append(evs, Event{Kind: EvRead, Site: site, Addr: addr})
			}
		}
		sync(EvUnlock, rng.Uint32N(2000)+1, obj)
		if rng.IntN(4) == 0 {
			sync(EvChanSend, rng.Uint32N(2000)+1, objs[rng.IntN(16)])
		}
		if rng.IntN(10) == 0 {
			evs = append(evs, Event{Kind: EvFuncExit, Site: rng.Uint32N(2000) + 1})
		}
	}
	return evs
}

// BenchmarkSize encodes the workload in batches of batchSize bytes and
// reports the bytes per event overall (batch headers included), per access
// (Read and Write) with the addresses delta-coded as they are, and per
// access had the addresses been written whole. Its ns/op is not the
// encoder's speed: it dispatches on the kind and counts.
func BenchmarkSize(b *testing.B) {
	evs := workload(100000)
	var e Encoder
	buf := make([]byte, 0, batchSize)
	var total, accesses, accessBytes, absolute int
	for b.Loop() {
		total, accesses, accessBytes, absolute = 0, 0, 0, 0
		buf = e.StartBatch(buf[:0], 1)
		for _, ev := range evs {
			if cap(buf)-len(buf) < MaxEventLen {
				FinishBatch(buf)
				total += len(buf)
				buf = e.StartBatch(buf[:0], 1)
			}
			prev, start := e.addr, len(buf)
			buf = appendKind(&e, buf, ev)
			if ev.Kind == EvRead || ev.Kind == EvWrite {
				accesses++
				accessBytes += len(buf) - start
				absolute += len(buf) - start - uvarintLen(zigzag(int64(ev.Addr-prev))) + uvarintLen(ev.Addr)
			}
		}
		FinishBatch(buf)
		total += len(buf)
	}
	b.ReportMetric(float64(total)/float64(len(evs)), "B/event")
	b.ReportMetric(float64(accessBytes)/float64(accesses), "B/access")
	b.ReportMetric(float64(absolute)/float64(accesses), "B/access-absolute-addr")
}

func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// BenchmarkReader decodes the workload: ns/event is the reader's cost.
func BenchmarkReader(b *testing.B) {
	evs := workload(100000)
	var e Encoder
	file := AppendHeader(nil, testHeader)
	start := len(file)
	file = e.StartBatch(file, 1)
	for _, ev := range evs {
		if len(file)-start > batchSize {
			FinishBatch(file[start:])
			start = len(file)
			file = e.StartBatch(file, 1)
		}
		file = appendKind(&e, file, ev)
	}
	FinishBatch(file[start:])
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(file))
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
}
