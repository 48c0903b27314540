package trace

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var versionRE = regexp.MustCompile(`^trace version \d+ is not supported \(precog reads version ` + strconv.Itoa(Version) + `\): an? (older|newer) precog recorded it`)

// FuzzReader feeds the reader arbitrary bytes, seeded with valid traces,
// padded ones and cuts of them. The reader must not panic, must end in
// io.EOF or one of its documented errors, every event it returns must
// survive the text form and keep (Seq, Sub) increasing within each batch,
// a trace that reads cleanly must read the same with padding appended, and
// OrderedReader and ReadAll must read what the file-order reader, sorted,
// does.
func FuzzReader(f *testing.F) {
	tr := sample(f)
	for _, perBatch := range []int{1, 4, 1000} {
		file := encode(tr.Header, tr.Events, perBatch).file
		f.Add(file)
		for _, cut := range []int{len(file) / 3, len(file) / 2, len(file) - 1} {
			f.Add(file[:cut])
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, perBatch := range []int{1, 4} {
		file := pad(rng, tr.Events, encode(tr.Header, tr.Events, perBatch))
		f.Add(file)
		f.Add(file[:len(file)/2])
	}
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameRead(t, "input", data) // OrderedReader and ReadAll read what the reference does
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrNotTrace) && !versionRE.MatchString(err.Error()) {
				brokenAt(t, err)
			}
			return
		}
		var (
			last  Event // the previous event of the batch
			batch int64 = -1
			n     int
		)
		var evs []Event
		for {
			ev, err := r.Next()
			if err == io.EOF {
				// Padding at the end changes nothing.
				_, again, err := readAll(append(data[:len(data):len(data)], make([]byte, 100)...))
				if err != nil || !reflect.DeepEqual(again, evs) {
					t.Fatalf("with padding at the end: %d events, error %v; without: %d events", len(again), err, len(evs))
				}
				break
			}
			if err != nil {
				if off := brokenAt(t, err); off > len(data) {
					t.Fatalf("error offset beyond the %d bytes: %v", len(data), err)
				}
				if _, again := r.Next(); again != err {
					t.Fatalf("Next after %v returned %v", err, again)
				}
				break
			}
			if n++; 2*n > len(data) {
				t.Fatalf("%d events from %d bytes", n, len(data))
			}
			back, err := parseEvent(ev.String())
			if err != nil || back != ev {
				t.Fatalf("event %+v: text %q parses back as %+v, %v", ev, ev.String(), back, err)
			}
			if r.base == batch && (ev.Seq < last.Seq || ev.Seq == last.Seq && ev.Sub <= last.Sub) {
				t.Fatalf("goroutine %d: %d.%d after %d.%d in one batch", ev.Goroutine, ev.Seq, ev.Sub, last.Seq, last.Sub)
			}
			last, batch = ev, r.base
			evs = append(evs, ev)
		}
	})
}

// FuzzParseText feeds the text parser arbitrary text, seeded with the
// sample. It must not panic, and whatever it accepts must print back as
// text that parses into the same trace.
func FuzzParseText(f *testing.F) {
	f.Add(sampleText)
	for _, line := range strings.Split(sampleText, "\n")[1:] {
		f.Add(strings.SplitN(sampleText, "\n", 2)[0] + "\n" + line)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tr, err := ParseText(strings.NewReader(text))
		if err != nil {
			return
		}
		again := tr.Header.String() + "\n" + lines(tr.Events)
		back, err := ParseText(strings.NewReader(again))
		if err != nil {
			t.Fatalf("%q parsed, printed as %q, which does not parse: %v", text, again, err)
		}
		if !back.Header.Start.Equal(tr.Header.Start) {
			t.Fatalf("start %v printed and parsed back as %v", tr.Header.Start, back.Header.Start)
		}
		back.Header.Start = tr.Header.Start
		if !reflect.DeepEqual(back, tr) {
			t.Fatalf("%q parsed as %+v, printed and parsed back as %+v", text, tr, back)
		}
	})
}
