package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// batch frames events (already encoded) as a batch of goroutine g with no
// events before it, with a minimal length field.
func batch(g uint64, events ...byte) []byte { return batchAt(g, 0, 0, events...) }

// batchAt frames events as a batch of goroutine g whose last seq before
// the batch is seq, followed by sub events without seq.
func batchAt(g, seq, sub uint64, events ...byte) []byte {
	b := binary.AppendUvarint([]byte{'B'}, g)
	b = binary.AppendUvarint(b, seq)
	b = binary.AppendUvarint(b, sub)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(events)))
	return append(b, events...)
}

func uv(v uint64) []byte { return binary.AppendUvarint(nil, v) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestDamage checks the error for each kind of damage, and that the events
// before it are returned.
func TestDamage(t *testing.T) {
	hdr := AppendHeader(nil, testHeader)
	h := len(hdr)
	lock := func(seqDelta uint64) []byte { // a Lock event
		return cat([]byte{byte(EvLock)}, uv(seqDelta), uv(1), uv(2))
	}
	for _, tc := range []struct {
		name   string
		file   []byte
		events int // read before the error
		err    string
	}{
		{"not a trace", []byte("#!/bin/sh\necho hello\n"), 0, "not a precog trace"},
		{"empty", nil, 0, "broken trace: header cut short at offset 0"},
		{"magic prefix", []byte("precog tr"), 0, "broken trace: header cut short at offset 0"},
		{"version", cat([]byte(magic), uv(3)), 0, "trace version 3 is not supported (precog reads version " + strconv.Itoa(Version) + "): an older precog recorded it; record it again"},
		{"header varint", cat([]byte(magic), bytes.Repeat([]byte{0xff}, 10), []byte{1}), 0,
			"broken trace: bad varint in header at offset 13"},
		{"header string limit", cat([]byte(magic), uv(Version), uv(MaxStringLen+1)), 0,
			"broken trace: string length 65537 exceeds the limit 65536 at offset 14"},
		{"header string cut", cat([]byte(magic), uv(Version), uv(10), []byte("Test")), 0,
			"broken trace: header cut short at offset 14"},
		{"pid", cat([]byte(magic), uv(Version), uv(0), uv(0), uv(0), uv(1<<40)), 0,
			"broken trace: process id 1099511627776 out of range at offset 17"},
		{"not a batch", cat(hdr, batch(1, lock(1)...), []byte("X")), 1,
			"broken trace: byte 0x58 where a batch should start at offset " + strconv.Itoa(h+12)},
		{"batch limit", cat(hdr, []byte{'B', 1, 0, 0}, binary.LittleEndian.AppendUint32(nil, MaxBatchLen+1)), 0,
			"broken trace: batch length 268435456 exceeds the limit 268435455 at offset " + strconv.Itoa(h+4)},
		{"batch header varint", cat(hdr, []byte{'B', 1}, bytes.Repeat([]byte{0x80}, 10), []byte{0}), 0,
			"broken trace: bad varint in batch header at offset " + strconv.Itoa(h+2)},
		{"batch header cut", cat(hdr, []byte{'B', 0x80}), 0,
			"broken trace: batch header cut short at offset " + strconv.Itoa(h+1)},
		{"kind 0", cat(hdr, batch(1, append(lock(1), 0)...)), 1,
			"broken trace: unknown event kind 0 at offset " + strconv.Itoa(h+12)},
		{"kind 90", cat(hdr, batch(1, 90)), 0, "broken trace: unknown event kind 90 at offset " + strconv.Itoa(h+8)},
		{"past batch end", cat(hdr, batch(1, lock(1)[:3]...), lock(2)), 0,
			"broken trace: event runs past the end of its batch at offset " + strconv.Itoa(h+8)},
		{"bad varint", cat(hdr, batch(1, cat([]byte{byte(EvRead)}, bytes.Repeat([]byte{0xff}, 10), []byte{1})...)), 0,
			"broken trace: bad varint at offset " + strconv.Itoa(h+9)},
		{"seq repeats", cat(hdr, batch(1, cat(lock(5), lock(0))...)), 1,
			"broken trace: seq 5 does not come after the goroutine's seq 5 at offset " + strconv.Itoa(h+13)},
		{"seq repeats the header's", cat(hdr, batchAt(1, 5, 3, lock(0)...)), 0,
			"broken trace: seq 5 does not come after the goroutine's seq 5 at offset " + strconv.Itoa(h+9)},
		{"seq overflows", cat(hdr, batch(1, cat(lock(1<<64-1), lock(1))...)), 1,
			"broken trace: seq overflows at offset " + strconv.Itoa(h+22)},
		{"event count overflows", cat(hdr, batchAt(1, 5, 1<<64-1, byte(EvFuncEnter), 1)), 0,
			"broken trace: event count after seq 5 overflows at offset " + strconv.Itoa(h+17)},
		{"first seq 0", cat(hdr, batch(1, lock(0)...)), 0,
			"broken trace: seq 0 does not come after the goroutine's seq 0 at offset " + strconv.Itoa(h+9)},
		{"site", cat(hdr, batch(1, cat([]byte{byte(EvFuncEnter)}, uv(1<<32))...)), 0,
			"broken trace: site 4294967296 out of range at offset " + strconv.Itoa(h+9)},
		{"compact site", cat(hdr, batch(1, cat([]byte{compactMark | 1}, uv(1<<(32-compactSiteBits)), uv(0))...)), 0,
			"broken trace: site 4294967296 out of range at offset " + strconv.Itoa(h+9)},
		{"compact past batch end", cat(hdr, batch(1, compactMark|compactWrite, 1, 2)), 0,
			"broken trace: event runs past the end of its batch at offset " + strconv.Itoa(h+8)},
		{"compact atomic site", cat(hdr, batch(1, cat([]byte{atomicMark | atomicStore | 1}, uv(1), uv(1<<(32-atomicSiteBits)), uv(0), uv(0))...)), 0,
			"broken trace: site 4294967296 out of range at offset " + strconv.Itoa(h+10)},
		{"kind between the kinds and the compact atomics", cat(hdr, batch(1, atomicMark-1, 1, 2)), 0,
			"broken trace: unknown event kind 95 at offset " + strconv.Itoa(h+8)},
		{"ok", cat(hdr, batch(1, cat([]byte{byte(EvChanRecv)}, uv(1), uv(1), uv(0), uv(2))...)), 0,
			"broken trace: ok flag 2 is neither 0 nor 1 at offset " + strconv.Itoa(h+12)},
		{"outcome", cat(hdr, batch(1, cat([]byte{byte(EvTestEnd)}, uv(1), uv(4))...)), 0,
			"broken trace: unknown test outcome 4 at offset " + strconv.Itoa(h+10)},
		{"select case", cat(hdr, batch(1, cat([]byte{byte(EvSelect)}, uv(1), uv(1), uv(zigzag(-2)), uv(0))...)), 0,
			"broken trace: select case -2 at offset " + strconv.Itoa(h+11)},
		{"name limit", cat(hdr, batch(1, cat([]byte{byte(EvTestStart)}, uv(1), uv(MaxStringLen+1))...)), 0,
			"broken trace: string length 65537 exceeds the limit 65536 at offset " + strconv.Itoa(h+10)},
		{"name past batch end", cat(hdr, batch(1, cat([]byte{byte(EvTestStart)}, uv(1), uv(5), []byte("Test"))...), []byte("X")), 0,
			"broken trace: event runs past the end of its batch at offset " + strconv.Itoa(h+8)},
		{"cut batch", cat(hdr, batch(1, cat(lock(1), lock(1), lock(1))...)[:8+4+4+2]), 2,
			"broken trace: batch cut after 10 of 12 bytes at offset " + strconv.Itoa(h+16)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, evs, err := readAll(tc.file)
			if err == nil || err.Error() != tc.err {
				t.Fatalf("error %v, want %s", err, tc.err)
			}
			if len(evs) != tc.events {
				t.Errorf("%d events before the error, want %d", len(evs), tc.events)
			}
			if strings.HasPrefix(tc.err, "broken trace") != errors.Is(err, ErrBroken) {
				t.Errorf("errors.Is(err, ErrBroken) = %v", errors.Is(err, ErrBroken))
			}
			tr, err2 := ReadAll(bytes.NewReader(tc.file))
			if err2 == nil || err2.Error() != tc.err || (tr != nil && len(tr.Events) != tc.events) {
				t.Errorf("ReadAll: %d events, error %v", len(tr.Events), err2)
			}
		})
	}
}

// TestBigLengths checks that a length within the limits but far beyond the
// end of the file costs no more memory than the file.
func TestBigLengths(t *testing.T) {
	file := cat(AppendHeader(nil, testHeader), []byte{'B', 1, 0, 0}, binary.LittleEndian.AppendUint32(nil, MaxBatchLen), bytes.Repeat([]byte{byte(EvFuncEnter), 1}, 100))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, evs, err := readAll(file)
	runtime.ReadMemStats(&after)
	if len(evs) != 100 || err == nil {
		t.Fatalf("%d events, error %v", len(evs), err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("reading a %d-byte trace claiming a %d-byte batch allocated %d bytes", len(file), MaxBatchLen, n)
	}
}
