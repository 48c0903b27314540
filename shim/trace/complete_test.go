package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// live returns the sample trace laid out as the shim's memory-mapped
// writer leaves it, with padding after the header and after batches, and
// with its header's state block saying state and the extent ending at the
// file's end: a writer that handed out all of the file.
func live(rng *rand.Rand, state State) []byte {
	tr := sampleForLive
	enc := encode(tr.Header, tr.Events, 3)
	ends := []int{len(AppendHeader(nil, tr.Header))}
	for end := range enc.batches {
		ends = append(ends, end)
	}
	slices.Sort(ends)
	var file []byte
	prev := 0
	for _, end := range ends {
		file = append(file, enc.file[prev:end]...)
		file = append(file, make([]byte, rng.IntN(2)*rng.IntN(40))...)
		prev = end
	}
	file = append(file, make([]byte, 64)...) // the end of the last chunk
	setState(file, state, uint64(len(file)))
	return file
}

var sampleForLive = func() *Trace {
	tr, err := ParseText(strings.NewReader(sampleText))
	if err != nil {
		panic(err)
	}
	return tr
}()

// setState rewrites the state block of the header at the start of file.
func setState(file []byte, state State, extent uint64) {
	_, block := AppendLiveHeader(nil, sampleHeader(file))
	binary.LittleEndian.PutUint64(file[block+ExtentField:], extent)
	binary.LittleEndian.PutUint64(file[block+StateField:], uint64(state))
}

// TestCompleteness checks that the reader tells a trace whose process
// ended its tests from one whose process died, and both from a file cut
// anywhere: at every offset before its extent the reader reports the cut,
// after the events before it.
func TestCompleteness(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, state := range []State{Ended, Recording} {
		file := live(rng, state)
		r, all, err := readAll(file)
		if err != nil {
			t.Fatalf("%v: whole file: %v", state, err)
		}
		if r.State() != state {
			t.Fatalf("state %v, want %v", r.State(), state)
		}
		if tr, err := ReadAll(bytes.NewReader(file)); err != nil || tr.State != state {
			t.Fatalf("ReadAll: state %v, error %v", tr.State, err)
		}
		hdr := len(AppendHeader(nil, sampleHeader(file)))
		for cut := 0; cut < len(file); cut++ {
			_, evs, err := readAll(file[:cut])
			if cut < hdr {
				if err == nil || !errors.Is(err, ErrBroken) && cut >= len(magic) {
					t.Fatalf("cut at %d in the header: %v", cut, err)
				}
				continue
			}
			want := "broken trace: file cut, "
			if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, ErrBroken) {
				t.Fatalf("%v, cut at %d of %d: error %v, want %q...", state, cut, len(file), err, want)
			}
			if len(evs) > len(all) || !slices.Equal(evs, all[:len(evs)]) {
				t.Fatalf("cut at %d: the %d events before the cut are not the first of the whole file's", cut, len(evs))
			}
		}
	}
}

// TestStopped checks that a trace whose writer stopped early, because its
// file could not grow or at its size limit, reads as broken after all its
// events, and says which.
func TestStopped(t *testing.T) {
	for _, c := range []struct {
		state   State
		want    string
		limited bool
	}{
		{Stopped, "broken trace: recording stopped early", false},
		{Limited, "broken trace: recording stopped at the trace's size limit, later events missing", true},
	} {
		file := live(rand.New(rand.NewPCG(7, 8)), c.state)
		_, evs, err := readAll(file)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.Is(err, ErrBroken) || errors.Is(err, ErrLimited) != c.limited {
			t.Fatalf("%v: error %v", c.state, err)
		}
		if len(evs) != len(sampleForLive.Events) {
			t.Errorf("%v: %d events, want all %d", c.state, len(evs), len(sampleForLive.Events))
		}
	}
}

// TestCut checks that a trace whose writer stopped early ends, read in
// the global order, after the last event up to its cut: every event with a
// seq up to it, none after, then the error that says why it stopped.
func TestCut(t *testing.T) {
	all := sampleForLive.Events
	for _, state := range []State{Stopped, Limited} {
		for i, ev := range all {
			cut := ev.Seq // the sample's seqs jump to the largest ones
			if cut == 0 || i > 0 && all[i-1].Seq == cut {
				continue
			}
			file := live(rand.New(rand.NewPCG(uint64(i), 11)), state)
			_, block := AppendLiveHeader(nil, sampleHeader(file))
			binary.LittleEndian.PutUint64(file[block+CutField:], cut)
			tr, err := ReadAll(bytes.NewReader(file))
			if !errors.Is(err, ErrBroken) || errors.Is(err, ErrLimited) != (state == Limited) {
				t.Fatalf("%v, cut %d: error %v", state, cut, err)
			}
			n := 0
			for n < len(all) && all[n].Seq <= cut {
				n++
			}
			if !slices.Equal(tr.Events, all[:n]) {
				t.Fatalf("%v, cut %d: %d events, want the %d up to the cut", state, cut, len(tr.Events), n)
			}
			o, err := NewOrderedReader(bytes.NewReader(file), int64(len(file)))
			if err != nil || o.Len() != n {
				t.Fatalf("%v, cut %d: OrderedReader's Len %d, error %v; want %d", state, cut, o.Len(), err, n)
			}
			if c, err := Count(bytes.NewReader(file)); c != n || !errors.Is(err, ErrBroken) {
				t.Fatalf("%v, cut %d: Count %d, error %v; want %d and the stop", state, cut, c, err, n)
			}
		}
	}
}

// TestUnknownExtent checks that a trace whose writer did not record its
// extent (a writer without a mapping, still recording) reads up to its
// end, as a process death leaves it: a cut cannot be told from a death
// then, and the state says the process did not end its tests.
func TestUnknownExtent(t *testing.T) {
	file := live(rand.New(rand.NewPCG(9, 10)), Recording)
	setState(file, Recording, 0)
	r, evs, err := readAll(file[:len(file)-50]) // inside the padding at the end
	if err != nil || r.State() != Recording || len(evs) == 0 {
		t.Fatalf("%d events, state %v, error %v", len(evs), r.State(), err)
	}
}

// TestHeaderChecksum checks that a change of any byte of the header is
// reported (as damage, not a trace, or a version this reader does not
// read), never read as another header.
func TestHeaderChecksum(t *testing.T) {
	file := AppendHeader(nil, testHeader)
	_, block := AppendLiveHeader(nil, testHeader)
	for i := 0; i < block; i++ {
		for _, flip := range []byte{1, 0x80, 0xff} {
			bad := bytes.Clone(file)
			bad[i] ^= flip
			r, err := NewReader(bytes.NewReader(bad))
			if err == nil {
				t.Fatalf("byte %d ^ %#x: read as header %+v", i, flip, r.Header())
			}
		}
	}
	bad := bytes.Clone(file)
	bad[block+StateField] = byte(numStates)
	if _, err := NewReader(bytes.NewReader(bad)); err == nil || !errors.Is(err, ErrBroken) {
		t.Errorf("unknown state: %v", err)
	}
}

// FuzzCut cuts a trace laid out as the shim writes it at any offset and
// flips any byte: the reader must never end cleanly with fewer events
// than the whole file's when the cut is before the extent.
func FuzzCut(f *testing.F) {
	file := live(rand.New(rand.NewPCG(11, 12)), Ended)
	for cut := 0; cut < len(file); cut += 7 {
		f.Add(uint32(cut), uint32(0), byte(0))
	}
	for _, cut := range []int{100, 4096, 8192, 12288} {
		f.Add(uint32(cut), uint32(0), byte(0))
	}
	_, all, err := readAll(file)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cut, at uint32, flip byte) {
		data := bytes.Clone(file[:int(cut)%(len(file)+1)])
		if len(data) > 0 {
			data[int(at)%len(data)] ^= flip
		}
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		var evs []Event
		for {
			ev, err := r.Next()
			if err == io.EOF {
				if len(data) < len(file) && flip == 0 {
					t.Fatalf("cut at %d of %d read cleanly", len(data), len(file))
				}
				break
			}
			if err != nil {
				brokenAt(t, err)
				break
			}
			evs = append(evs, ev)
		}
		if flip == 0 && (len(evs) > len(all) || !slices.Equal(evs, all[:len(evs)])) {
			t.Fatalf("cut at %d: the events before the cut are not the first of the whole file's", len(data))
		}
	})
}
