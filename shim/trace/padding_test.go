package trace

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"testing"
)

// TestPaddingAndUncommitted checks that zero padding and uncommitted events
// after batches, as the shim's memory-mapped output leaves them, read as
// nothing: the events are those of the same trace without them.
func TestPaddingAndUncommitted(t *testing.T) {
	tr := sample(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, perBatch := range []int{1, 3, 1000} {
		enc := encode(tr.Header, tr.Events, perBatch)
		_, want, err := readAll(enc.file)
		if err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 50; round++ {
			file := pad(rng, tr.Events, enc)
			_, got, err := readAll(file)
			if err != nil {
				t.Fatalf("%d per batch, round %d: %v", perBatch, round, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%d per batch, round %d: got\n%s\nwant\n%s", perBatch, round, lines(got), lines(want))
			}
		}
	}
}

// pad returns enc's file with padding after the header and after every
// batch, and before the padding after a batch, sometimes up to
// MaxUncommitted events cut anywhere (taken from events), as a process
// that died while appending them leaves: the rest of each event's bytes
// are zero.
func pad(rng *rand.Rand, events []Event, enc encoded) []byte {
	hdr := len(AppendHeader(nil, sampleHeader(enc.file)))
	ends := []int{hdr}
	for end := range enc.batches {
		ends = append(ends, end)
	}
	sort.Ints(ends)
	var out []byte
	prev := 0
	for i, end := range ends {
		out = append(out, enc.file[prev:end]...)
		prev = end
		if i > 0 && rng.IntN(2) == 0 {
			var e Encoder
			for n := rng.IntN(MaxUncommitted) + 1; n > 0; n-- {
				ev := appendKind(&e, nil, events[rng.IntN(len(events))])
				cut := rng.IntN(len(ev) + 1)
				out = append(out, ev[:cut]...)
				out = append(out, make([]byte, len(ev)-cut)...)
				if cut < len(ev) {
					break // nothing follows a cut event
				}
			}
		}
		out = append(out, make([]byte, rng.IntN(3)*rng.IntN(5000))...)
	}
	return out
}

// sampleHeader reads the header at the start of file.
func sampleHeader(file []byte) Header {
	r, err := NewReader(bytes.NewReader(file))
	if err != nil {
		panic(err)
	}
	return r.Header()
}

// TestPaddingDamage checks what is still damage around padding and
// uncommitted events.
func TestPaddingDamage(t *testing.T) {
	hdr := AppendHeader(nil, testHeader)
	h := len(hdr)
	lock := func(seqDelta uint64) []byte { return cat([]byte{byte(EvLock)}, uv(seqDelta), uv(1), uv(2)) }
	zeros := make([]byte, 100)
	for _, tc := range []struct {
		name   string
		file   []byte
		events int
		err    string
	}{
		{"only padding", cat(hdr, zeros), 0, ""},
		{"padding between batches", cat(hdr, zeros, batch(1, lock(1)...), zeros, batch(2, lock(2)...), zeros), 2, ""},
		{"empty batches", cat(hdr, batch(1), batch(2), zeros, batch(1)), 0, ""},
		{"two uncommitted events", cat(hdr, batch(1, lock(1)...), lock(1), lock(1), zeros, batch(2, lock(2)...)), 2, ""},
		{"uncommitted compact write cut", cat(hdr, batch(1, lock(1)...), []byte{compactMark | compactWrite | 3, 0x85}, zeros, batch(2, lock(2)...)), 2, ""},
		{"uncommitted compact read and write", cat(hdr, batch(1, lock(1)...), []byte{compactMark | compactAligned, 31, 2}, []byte{compactMark | compactWrite, 1, 2, 0x81}, zeros, batch(2)), 1, ""},
		{"uncommitted name cut", cat(hdr, batch(1, lock(1)...), []byte{byte(EvTestStart), 1, 10, 'T'}, zeros, batch(2)), 1, ""},
		{"uncommitted event cut by the end", cat(hdr, batch(1, lock(1)...), lock(1)[:2]), 1,
			"broken trace: uncommitted event cut short at offset " + strconv.Itoa(h+14)},
		{"garbage after padding", cat(hdr, batch(1, lock(1)...), zeros, []byte("X")), 1,
			"broken trace: byte 0x58 where a batch should start at offset " + strconv.Itoa(h+12+100)},
		{"event after padding", cat(hdr, batch(1, lock(1)...), zeros, lock(2)), 1,
			"broken trace: byte 0x4 where a batch should start at offset " + strconv.Itoa(h+12+100)},
		{"event after the header", cat(hdr, lock(1)), 0,
			"broken trace: byte 0x4 where a batch should start at offset " + strconv.Itoa(h)},
		{"three uncommitted events", cat(hdr, batch(1, lock(1)...), lock(1), lock(1), lock(1)), 1,
			"broken trace: more than 2 events after the end of a batch at offset " + strconv.Itoa(h+12)},
		{"uncommitted event with a bad varint", cat(hdr, batch(1, lock(1)...), []byte{byte(EvLock)}, bytes.Repeat([]byte{0xff}, 10), []byte{1}), 1,
			"broken trace: bad varint in uncommitted event at offset " + strconv.Itoa(h+13)},
		{"uncommitted name too long", cat(hdr, batch(1, lock(1)...), []byte{byte(EvTestStart), 1}, uv(MaxStringLen+1)), 1,
			"broken trace: string length 65537 exceeds the limit 65536 at offset " + strconv.Itoa(h+14)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, evs, err := readAll(tc.file)
			if got := errString(err); got != tc.err {
				t.Fatalf("error %q, want %q", got, tc.err)
			}
			if len(evs) != tc.events {
				t.Errorf("%d events, want %d", len(evs), tc.events)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
