package trace

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"testing"
)

// sortedRead is ReadAll as it was before OrderedReader: every event in file
// order with a Reader, then a stable sort into the global order. It is the
// reference OrderedReader must equal.
func sortedRead(file []byte) (*Trace, error) {
	rd, err := NewReader(bytes.NewReader(file))
	if err != nil {
		return nil, err
	}
	t := &Trace{Header: rd.Header(), State: rd.State()}
	for {
		ev, err := rd.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			Sort(t.Events)
			return t, err
		}
		t.Events = append(t.Events, ev)
	}
}

// orderedRead reads file with an OrderedReader, event by event.
func orderedRead(file []byte) (*Trace, error) {
	o, err := NewOrderedReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		return nil, err
	}
	t := &Trace{Header: o.Header(), State: o.State()}
	for {
		ev, err := o.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			if len(t.Events) != o.Len() {
				return nil, errors.New("Len differs from the events read")
			}
			if _, again := o.Next(); again != err && !(err == nil && again == io.EOF) {
				return nil, errors.New("Next after the end returned another error")
			}
			return t, err
		}
		t.Events = append(t.Events, ev)
	}
}

// sameRead checks that the ordered reader and ReadAll read file as the
// reference does: the same header, state, events and error.
func sameRead(t *testing.T, what string, file []byte) {
	t.Helper()
	want, wantErr := sortedRead(file)
	// Count scans what the reference decodes: the same events, the same
	// error after them.
	wantN := 0
	if want != nil {
		wantN = len(want.Events)
	}
	if n, err := Count(bytes.NewReader(file)); errString(err) != errString(wantErr) || n != wantN {
		t.Fatalf("%s, Count: %d events, error %v; want %d, %v", what, n, err, wantN, wantErr)
	}
	for _, read := range []struct {
		name string
		f    func([]byte) (*Trace, error)
	}{
		{"OrderedReader", orderedRead},
		{"ReadAll", func(b []byte) (*Trace, error) { return ReadAll(bytes.NewReader(b)) }},
		{"ReadAll of a plain reader", func(b []byte) (*Trace, error) { return ReadAll(io.MultiReader(bytes.NewReader(b))) }},
	} {
		got, err := read.f(file)
		if errString(err) != errString(wantErr) {
			t.Fatalf("%s, %s: error %v, want %v", what, read.name, err, wantErr)
		}
		if (got == nil) != (want == nil) {
			t.Fatalf("%s, %s: trace %v, want %v", what, read.name, got != nil, want != nil)
		}
		if got == nil {
			continue
		}
		if got.Header != want.Header || got.State != want.State {
			t.Fatalf("%s, %s: header %+v %v, want %+v %v", what, read.name, got.Header, got.State, want.Header, want.State)
		}
		if !slices.Equal(got.Events, want.Events) {
			t.Fatalf("%s, %s: %d events, want %d:\n%s\nwant\n%s", what, read.name, len(got.Events), len(want.Events), lines(got.Events), lines(want.Events))
		}
	}
}

// randomTrace builds the batches of a random trace of up to gs goroutines:
// accesses and sync events (some with names, long enough to cross a
// reader's window), goroutines that end and have their id used again, and
// events before a goroutine's first sync event (place 0, so that two
// goroutines of one id tie). Each batch is a separate byte slice, in
// its goroutine's order.
func randomTrace(rng *rand.Rand, gs, events int) [][][]byte {
	type gor struct {
		id    uint64
		enc   Encoder
		cur   []byte
		limit int
	}
	var (
		seq     uint64
		live    []*gor
		batches [][][]byte // per incarnation, its batches
		index   []int      // live goroutine -> its entry in batches
	)
	flush := func(i int) {
		g := live[i]
		if len(g.cur) > 0 {
			FinishBatch(g.cur)
			batches[index[i]] = append(batches[index[i]], g.cur)
			g.cur = nil
		}
	}
	start := func(id uint64) {
		live = append(live, &gor{id: id, limit: 1 + rng.IntN(300)})
		index = append(index, len(batches))
		batches = append(batches, nil)
	}
	for id := range uint64(gs) {
		start(id)
	}
	for range events {
		i := rng.IntN(len(live))
		g := live[i]
		if g.cur == nil {
			g.cur = g.enc.StartBatch(nil, g.id)
		}
		e := &g.enc
		switch r := rng.IntN(100); {
		case r < 55:
			g.cur = e.AppendRead(g.cur, uint32(rng.IntN(50)), uintptr(0xc000000000+rng.IntN(1<<12)))
		case r < 70:
			g.cur = e.AppendWrite(g.cur, uint32(rng.IntN(50)), uintptr(0xc000000000+rng.IntN(1<<12)), rng.Uint64())
		case r < 75:
			g.cur = e.AppendFuncEnter(g.cur, uint32(rng.IntN(50)))
		case r < 77:
			seq++
			name := make([]byte, rng.IntN(3000))
			for j := range name {
				name[j] = 'a' + byte(rng.IntN(26))
			}
			g.cur = e.AppendTestStart(g.cur, seq, "Test"+string(name))
		case r < 98:
			seq++
			g.cur = e.AppendLock(g.cur, seq, uint32(rng.IntN(50)), uintptr(0xc000100000+8*rng.IntN(16)))
		default:
			// The goroutine ends; another takes its id (half the time)
			// or a new one.
			seq++
			g.cur = e.AppendEnd(g.cur, seq)
			flush(i)
			id := g.id
			live = slices.Delete(live, i, i+1)
			index = slices.Delete(index, i, i+1)
			if rng.IntN(2) == 0 {
				id = uint64(gs) + rng.Uint64N(1<<40)
			}
			start(id)
			continue
		}
		if len(g.cur) > g.limit {
			flush(i)
		}
	}
	for i := range live {
		flush(i)
	}
	return batches
}

// layout writes the header and the batches into a file, interleaving the
// goroutines' batches at random (each goroutine's in its order), with
// padding and uncommitted events between them when pad is set.
func layout(rng *rand.Rand, h Header, batches [][][]byte, pad bool) []byte {
	file := AppendHeader(nil, h)
	var left []int
	for i, bs := range batches {
		for range bs {
			left = append(left, i)
		}
	}
	rng.Shuffle(len(left), func(i, j int) { left[i], left[j] = left[j], left[i] })
	next := make([]int, len(batches))
	var e Encoder
	for _, i := range left {
		file = append(file, batches[i][next[i]]...)
		next[i]++
		if pad {
			if rng.IntN(4) == 0 {
				ev := e.AppendLock(nil, 1, 3, 0xc000100000)
				cut := rng.IntN(len(ev) + 1)
				file = append(file, ev[:cut]...)
				file = append(file, make([]byte, len(ev)-cut)...)
			}
			file = append(file, make([]byte, rng.IntN(3)*rng.IntN(200))...)
		}
	}
	return file
}

// TestOrderedReader checks the ordered reader against the reference
// (every event in file order, then a stable sort): on the sample, on
// random traces with interleaved batches, padding and uncommitted events,
// goroutine ids used twice and names longer than a window, and on every
// one of them cut and damaged at random places.
func TestOrderedReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tr := sample(t)
	for _, perBatch := range []int{1, 3, 1000} {
		enc := encode(tr.Header, tr.Events, perBatch)
		sameRead(t, "sample", enc.file)
		sameRead(t, "padded sample", pad(rng, tr.Events, enc))
	}
	for round := range 16 {
		gs := 1 + rng.IntN(40)
		batches := randomTrace(rng, gs, 200+rng.IntN(1500))
		file := layout(rng, testHeader, batches, round%2 == 1)
		sameRead(t, "random trace", file)
		for range 8 {
			cut := rng.IntN(len(file) + 1)
			sameRead(t, "cut", file[:cut])
			damaged := slices.Clone(file)
			for range 1 + rng.IntN(3) {
				damaged[rng.IntN(len(damaged))] ^= byte(1 + rng.IntN(255))
			}
			sameRead(t, "damaged", damaged)
		}
	}
}

// TestOrderedReaderTies reads two goroutines of one id whose events tie on
// (Seq, Sub, Goroutine): they come in file order.
func TestOrderedReaderTies(t *testing.T) {
	var a, b Encoder
	file := AppendHeader(nil, testHeader)
	for _, e := range []*Encoder{&a, &b, &a} {
		start := len(file)
		file = e.StartBatch(file, 7)
		file = e.AppendRead(file, 1, 0x10)
		file = e.AppendRead(file, 2, 0x20)
		FinishBatch(file[start:])
	}
	sameRead(t, "ties", file)
	tr, err := ReadAll(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	const want = "0.1 g=7 Read site=1 addr=0x10\n0.1 g=7 Read site=1 addr=0x10\n0.2 g=7 Read site=2 addr=0x20\n0.2 g=7 Read site=2 addr=0x20\n0.3 g=7 Read site=1 addr=0x10\n0.4 g=7 Read site=2 addr=0x20\n"
	if got := lines(tr.Events); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

// TestReadAllOffset checks that ReadAll of a file reads from the file's
// current offset, as a Reader would.
func TestReadAllOffset(t *testing.T) {
	tr := sample(t)
	file := encode(tr.Header, tr.Events, 4).file
	path := t.TempDir() + "/trace"
	if err := os.WriteFile(path, append([]byte("junk"), file...), 0o666); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(4, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Events, tr.Events) {
		t.Errorf("got\n%swant\n%s", lines(got.Events), lines(tr.Events))
	}
}
