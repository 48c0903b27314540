package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// appendKind appends ev with the typed Encoder method of its kind.
func appendKind(e *Encoder, b []byte, ev Event) []byte {
	a := uintptr(ev.Addr)
	switch ev.Kind {
	case EvFork:
		return e.AppendFork(b, ev.Seq, ev.Site, ev.Peer)
	case EvBegin:
		return e.AppendBegin(b, ev.Seq, ev.Peer)
	case EvEnd:
		return e.AppendEnd(b, ev.Seq)
	case EvLock:
		return e.AppendLock(b, ev.Seq, ev.Site, a)
	case EvUnlock:
		return e.AppendUnlock(b, ev.Seq, ev.Site, a)
	case EvRLock:
		return e.AppendRLock(b, ev.Seq, ev.Site, a)
	case EvRUnlock:
		return e.AppendRUnlock(b, ev.Seq, ev.Site, a)
	case EvTryLock:
		return e.AppendTryLock(b, ev.Seq, ev.Site, a, ev.Value == 1)
	case EvWGAdd:
		return e.AppendWGAdd(b, ev.Seq, ev.Site, a, ev.Arg)
	case EvWGDone:
		return e.AppendWGDone(b, ev.Seq, ev.Site, a)
	case EvWGWait:
		return e.AppendWGWait(b, ev.Seq, ev.Site, a)
	case EvOnceDo:
		return e.AppendOnceDo(b, ev.Seq, ev.Site, a)
	case EvCondWait:
		return e.AppendCondWait(b, ev.Seq, ev.Site, a)
	case EvCondSignal:
		return e.AppendCondSignal(b, ev.Seq, ev.Site, a)
	case EvCondBroadcast:
		return e.AppendCondBroadcast(b, ev.Seq, ev.Site, a)
	case EvAtomicLoad:
		return e.AppendAtomicLoad(b, ev.Seq, ev.Site, a, ev.Value)
	case EvAtomicStore:
		return e.AppendAtomicStore(b, ev.Seq, ev.Site, a, ev.Value)
	case EvChanMake:
		return e.AppendChanMake(b, ev.Seq, ev.Site, a, ev.Value)
	case EvChanSend:
		return e.AppendChanSend(b, ev.Seq, ev.Site, a, uint32(ev.Peer))
	case EvChanRecv:
		return e.AppendChanRecv(b, ev.Seq, ev.Site, a, ev.Value == 1, uint32(ev.Peer))
	case EvChanClose:
		return e.AppendChanClose(b, ev.Seq, ev.Site, a)
	case EvSelect:
		return e.AppendSelect(b, ev.Seq, ev.Site, int(ev.Arg), a, ev.Value == 1, uint32(ev.Peer))
	case EvRead:
		return e.AppendRead(b, ev.Site, a)
	case EvWrite:
		return e.AppendWrite(b, ev.Site, a, ev.Value)
	case EvMapRead:
		return e.AppendMapRead(b, ev.Site, a)
	case EvMapWrite:
		return e.AppendMapWrite(b, ev.Site, a)
	case EvMapIter:
		return e.AppendMapIter(b, ev.Site, a)
	case EvFuncEnter:
		return e.AppendFuncEnter(b, ev.Site)
	case EvFuncExit:
		return e.AppendFuncExit(b, ev.Site)
	case EvTestStart:
		return e.AppendTestStart(b, ev.Seq, ev.Name)
	case EvTestEnd:
		return e.AppendTestEnd(b, ev.Seq, Outcome(ev.Value))
	case EvGCEpoch:
		return e.AppendGCEpoch(b, ev.Seq, ev.Value)
	case EvTaskGo:
		return e.AppendTaskGo(b, ev.Seq, ev.Site, a, ev.Peer)
	case EvTaskWait:
		return e.AppendTaskWait(b, ev.Seq, ev.Site, a)
	case EvCancel:
		return e.AppendCancel(b, ev.Seq, ev.Site, a)
	case EvMapMake:
		return e.AppendMapMake(b, ev.Seq, ev.Site, a)
	case EvBubble:
		return e.AppendBubble(b, ev.Seq, ev.Site, a, ev.Value)
	case EvSleep:
		return e.AppendSleep(b, ev.Seq, ev.Site, a, ev.Value)
	case EvWake:
		return e.AppendWake(b, ev.Seq, ev.Site, a, ev.Value)
	case EvClock:
		return e.AppendClock(b, ev.Seq, ev.Site, a, ev.Value)
	case EvSyncWait:
		return e.AppendSyncWait(b, ev.Seq, ev.Site, a, ev.Value)
	case EvPoolPut:
		return e.AppendPoolPut(b, ev.Seq, ev.Site, a, uintptr(ev.Value))
	case EvPoolGet:
		return e.AppendPoolGet(b, ev.Seq, ev.Site, a, uintptr(ev.Value))
	case EvBelow:
		return e.AppendBelow(b, ev.Seq, ev.Peer)
	case EvMark:
		return e.AppendMark(b, ev.Seq, ev.Site)
	case EvAfter:
		return e.AppendAfter(b, ev.Seq, ev.Site, ev.Peer)
	case EvCreator:
		return e.AppendCreator(b, ev.Seq, ev.Name)
	case EvRan:
		return e.AppendRan(b, ev.Seq, ev.Site, a)
	case EvNew:
		return e.AppendNew(b, ev.Seq, ev.Site, a, ev.Value)
	}
	panic("no Append method for " + ev.Kind.String())
}

var testHeader = Header{
	Test:    "TestTransfer",
	Package: "example.com/bank",
	Start:   time.Unix(1735830245, 6).UTC(),
	PID:     4242,
}

// sampleText is a trace with every kind of event, in the global order:
// two goroutines, with extreme values of every field somewhere.
const sampleText = `precog trace v1 test="TestTransfer" package="example.com/bank" start=2025-01-02T15:04:05.000000006Z pid=4242
0.1 g=0 FuncEnter site=1
1 g=0 TestStart name="TestTransfer"
2 g=0 ChanMake site=2 addr=0xc000020060 cap=0
3 g=0 Fork site=3 child=18446744073709551614
3.1 g=0 Write site=4 addr=0xc000012348 value=18446744073709551615
4 g=18446744073709551614 Begin parent=0
4.1 g=18446744073709551614 Read site=4294967295 addr=0xc000012348
5 g=18446744073709551614 Lock site=6 addr=0xc000012340
6 g=18446744073709551614 Unlock site=7 addr=0xc000012340
7 g=18446744073709551614 RLock site=8 addr=0xffffffffffffffff
8 g=18446744073709551614 RUnlock site=9 addr=0xffffffffffffffff
9 g=18446744073709551614 TryLock site=10 addr=0x0 ok=true
10 g=18446744073709551614 TryLock site=10 addr=0xc000012340 ok=false
11 g=18446744073709551614 WGAdd site=11 addr=0xc0000140a0 delta=-9223372036854775808
12 g=18446744073709551614 WGAdd site=11 addr=0xc0000140a0 delta=9223372036854775807
13 g=18446744073709551614 WGDone site=12 addr=0xc0000140a0
14 g=18446744073709551614 OnceDo site=13 addr=0x8
15 g=18446744073709551614 CondWait site=14 addr=0xc0000160c0
16 g=18446744073709551614 CondSignal site=15 addr=0xc0000160c0
17 g=18446744073709551614 CondBroadcast site=16 addr=0xc0000160c0
17.1 g=18446744073709551614 AtomicLoad site=17 addr=0xc000018000 value=0
17.2 g=18446744073709551614 AtomicLoad site=17 addr=0xc000018000 value=1
17.3 g=18446744073709551614 Read site=4 addr=0xc000012348
18.1 g=18446744073709551614 AtomicLoad site=17 addr=0xc000018000 value=2
18.2 g=18446744073709551614 Read site=4 addr=0xc000012348
19 g=18446744073709551614 AtomicStore site=18 addr=0xc000018000 value=127
20 g=18446744073709551614 ChanSend site=19 addr=0xc000020060
20.1 g=18446744073709551614 MapRead site=20 addr=0xc000022000
20.2 g=18446744073709551614 MapWrite site=21 addr=0xc000022000
20.3 g=18446744073709551614 MapIter site=22 addr=0xc000022000
21 g=18446744073709551614 GCEpoch epoch=1
22 g=18446744073709551614 End
23 g=0 ChanRecv site=23 addr=0xc000020060 ok=true
24 g=0 ChanRecv site=23 addr=0xc000020060 ok=false
25 g=0 Select site=24 case=1 addr=0xc000020060 ok=false
26 g=0 Select site=24 case=-1 addr=0x0 ok=true
27 g=0 ChanClose site=25 addr=0xc000020060
28 g=0 TaskGo site=26 addr=0xc000030000 child=7
29 g=0 TaskWait site=27 addr=0xc000030000
30 g=0 WGWait site=28 addr=0xc0000140a0
30.1 g=0 FuncExit site=1
30.2 g=0 Write site=4 addr=0xc000012348 value=0
31 g=0 Cancel site=29 addr=0xc000040000
32 g=0 MapMake site=30 addr=0xc000022000
33 g=0 Bubble site=31 addr=0x0 value=946684800000000000
34 g=0 Sleep site=32 addr=0x0 value=946684800000000000
35 g=0 Wake site=32 addr=0x0 value=946684801000000000
36 g=0 Clock site=33 addr=0x0 value=946684801000000000
37 g=0 SyncWait site=34 addr=0x0 value=946684801000000000
38 g=0 PoolPut site=35 addr=0xc000024000 value=824633794560
39 g=0 PoolGet site=36 addr=0xc000024000 value=824633794560
1000000000000 g=0 TestEnd outcome=panic
1000000000001 g=0 TestStart name="Test\"quoted\" with spaces/ünïcode\x00"
1000000000002 g=0 TestEnd outcome=skip
1000000000003 g=7 Begin parent=none
1000000000004 g=7 Below parent=18446744073709551614
1000000000005 g=0 Mark site=4294967295
1000000000006 g=7 After site=37 parent=0
1000000000007 g=7 Creator name="gopkg.in/yaml%2ev3.(*decoder).run.func1"
1000000000008 g=0 Ran site=38 addr=0x0
1000000000009 g=0 New site=39 addr=0xc000026000 size=18446744073709551615
`

func sample(t testing.TB) *Trace {
	t.Helper()
	tr, err := ParseText(strings.NewReader(sampleText))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// encoded is a trace encoded by encode.
type encoded struct {
	file    []byte
	order   []Event      // the events in file order
	ends    []int        // the file offset at which each of them ends
	batches map[int]bool // the file offsets at which batches end
}

// encode writes events as batches of at most perBatch events, each
// goroutine's batches in its order, interleaving goroutines as the events
// do.
func encode(h Header, events []Event, perBatch int) encoded {
	enc := encoded{file: AppendHeader(nil, h), batches: make(map[int]bool)}
	pending := make(map[uint64][]Event)
	encoders := make(map[uint64]*Encoder)
	var gs []uint64
	flush := func(g uint64) {
		e := encoders[g]
		if e == nil {
			e = new(Encoder)
			encoders[g] = e
		}
		b := e.StartBatch(nil, g)
		for _, ev := range pending[g] {
			b = appendKind(e, b, ev)
			enc.order = append(enc.order, ev)
			enc.ends = append(enc.ends, len(enc.file)+len(b))
		}
		FinishBatch(b)
		enc.file = append(enc.file, b...)
		enc.batches[len(enc.file)] = true
		delete(pending, g)
	}
	for _, ev := range events {
		if _, ok := pending[ev.Goroutine]; !ok {
			gs = append(gs, ev.Goroutine)
		}
		pending[ev.Goroutine] = append(pending[ev.Goroutine], ev)
		if len(pending[ev.Goroutine]) == perBatch {
			flush(ev.Goroutine)
		}
	}
	for _, g := range gs {
		if _, ok := pending[g]; ok {
			flush(g)
		}
	}
	return enc
}

// readAll reads file with a Reader, returning the events in file order and
// the error that ended them (nil for io.EOF).
func readAll(file []byte) (*Reader, []Event, error) {
	r, err := NewReader(bytes.NewReader(file))
	if err != nil {
		return nil, nil, err
	}
	var evs []Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return r, evs, nil
		}
		if err != nil {
			return r, evs, err
		}
		evs = append(evs, ev)
	}
}

func TestEveryKindInSample(t *testing.T) {
	seen := make(map[Kind]bool)
	for _, ev := range sample(t).Events {
		seen[ev.Kind] = true
	}
	for k := evNone + 1; k < numKinds; k++ {
		if !seen[k] {
			t.Errorf("sample has no %v event", k)
		}
		if got := kindNamed(k.String()); got != k {
			t.Errorf("kindNamed(%q) = %v", k.String(), got)
		}
	}
}

// TestRoundTrip encodes every kind of event, with extreme field values,
// with the kinds' own Append methods and with AppendEvent, in batches of
// different sizes, and checks that both encode alike and decode to the
// same events.
func TestRoundTrip(t *testing.T) {
	tr := sample(t)
	for _, perBatch := range []int{1, 2, 3, 1000} {
		enc := encode(tr.Header, tr.Events, perBatch)
		file, order := enc.file, enc.order
		r, got, err := readAll(file)
		if err != nil {
			t.Fatalf("%d per batch: %v", perBatch, err)
		}
		if r.Header() != tr.Header {
			t.Errorf("header %+v, want %+v", r.Header(), tr.Header)
		}
		if !reflect.DeepEqual(got, order) {
			t.Errorf("%d per batch: decoded\n%s\nwant\n%s", perBatch, lines(got), lines(order))
		}
		all, err := ReadAll(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(all, tr) {
			t.Errorf("%d per batch: ReadAll gave\n%s\nwant\n%s", perBatch, lines(all.Events), lines(tr.Events))
		}
	}
	// AppendEvent encodes as the kinds' methods do.
	var e1, e2 Encoder
	var b1, b2 []byte
	for _, ev := range tr.Events {
		b1, b2 = appendKind(&e1, b1, ev), e2.AppendEvent(b2, ev)
		if !bytes.Equal(b1, b2) {
			t.Fatalf("AppendEvent(%v) = % x, want % x", ev, b2, b1)
		}
	}
}

func lines(evs []Event) string {
	var b strings.Builder
	for _, ev := range evs {
		b.WriteString(ev.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// TestText checks that the text form of the sample is the text it was
// parsed from.
func TestText(t *testing.T) {
	tr := sample(t)
	got := tr.Header.String() + "\n" + lines(tr.Events)
	if got != sampleText {
		t.Errorf("text form:\n%s\nwant\n%s", got, sampleText)
	}
}

func TestParseTextErrors(t *testing.T) {
	const h = "precog trace v1 test=\"T\" package=\"p\" start=2025-01-02T15:04:05Z pid=1\n"
	for _, tc := range []struct{ text, err string }{
		{"", `no header line "precog trace v1"`},
		{"trace v1\n", `line 1: header does not start with "precog trace v1"`},
		{"precog trace v1 test=\"T\" pid=1\n", "line 1: header needs test, package, start and pid"},
		{"precog trace v1 test=\"T\" test=\"T\"\n", "line 1: test twice"},
		{"precog trace v1 test=T\n", "line 1: bad test: invalid syntax"},
		{"precog trace v1 color=red\n", `line 1: unknown header field "color"`},
		{h + "1 g=1\n", "line 2: event needs a seq, a goroutine and a kind"},
		{h + "\n# comment\n1 g=1 Jump\n", `line 4: unknown event kind "Jump"`},
		{h + "1 2 End\n", "line 2: no goroutine (g=N) after the seq"},
		{h + "x g=1 End\n", `line 2: bad seq: strconv.ParseUint: parsing "x": invalid syntax`},
		{h + "1.1 g=1 End\n", "line 2: End is a sync event, its seq has no .Sub"},
		{h + "1 g=1 Read site=1 addr=0x1\n", "line 2: Read has no seq of its own, its seq must be Seq.Sub"},
		{h + "1 g=1 Lock site=1\n", "line 2: Lock needs field addr"},
		{h + "1 g=1 Lock site=1 addr=0x1 addr=0x2\n", "line 2: addr twice"},
		{h + "1 g=1 Lock site=1 addr=0x1 ok=true\n", `line 2: Lock has no field "ok"`},
		{h + "1 g=1 Lock site=1 addr=12\n", `line 2: bad addr: "12" is not hexadecimal with 0x`},
		{h + "1 g=1 Lock site=4294967296 addr=0x1\n", `line 2: bad site: strconv.ParseUint: parsing "4294967296": value out of range`},
		{h + "1 g=1 TestEnd outcome=lost\n", `line 2: bad outcome: "lost" is not pass, fail, panic or skip`},
		{h + "1 g=1 Select site=1 case=-2 addr=0x0\n", "line 2: bad case: -2 is below -1"},
		{h + "1 g=1 TestStart name=\"unterminated\n", `line 2: bad quoted string in "name=\"unterminated"`},
		{h + "1 g=1 Lock site=1(a.go:1:1 addr=0x0\n", `line 2: no ) after ( in "site=1(a.go:1:1 addr=0x0"`},
	} {
		_, err := ParseText(strings.NewReader(tc.text))
		if err == nil || err.Error() != tc.err {
			t.Errorf("ParseText(%q): error %v, want %s", tc.text, err, tc.err)
		}
	}
	// Site positions, which may hold spaces, are ignored.
	tr, err := ParseText(strings.NewReader(h + "1 g=1 Lock site=3(my dir/a.go:1:2) addr=0x10\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Event{Kind: EvLock, Goroutine: 1, Seq: 1, Site: 3, Addr: 16}); tr.Events[0] != want {
		t.Errorf("got %+v, want %+v", tr.Events[0], want)
	}
}

var brokenRE = regexp.MustCompile(`^broken trace: .+ at offset (\d+)$`)

// brokenAt returns the offset in a broken trace error, failing the test if
// err is not one.
func brokenAt(t *testing.T, err error) int {
	t.Helper()
	m := brokenRE.FindStringSubmatch(fmt.Sprint(err))
	if m == nil || !errors.Is(err, ErrBroken) {
		t.Fatalf("error %v, want a broken trace error", err)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestTruncate cuts a trace at every byte: the reader must return exactly
// the events that end before the cut, then an error whose offset is at or
// after the end of the last of them and at or before the cut, or io.EOF if
// the cut falls between batches.
func TestTruncate(t *testing.T) {
	tr := sample(t)
	enc := encode(tr.Header, tr.Events, 4)
	file, order, ends := enc.file, enc.order, enc.ends
	headerLen := len(AppendHeader(nil, tr.Header))
	for cut := 0; cut < len(file); cut++ {
		r, got, err := readAll(file[:cut])
		if cut < headerLen {
			if r != nil || brokenAt(t, err) > cut {
				t.Fatalf("cut at %d: reader %v, error %v", cut, r != nil, err)
			}
			continue
		}
		n := 0
		for n < len(ends) && ends[n] <= cut {
			n++
		}
		if !reflect.DeepEqual(got, order[:n]) && !(n == 0 && len(got) == 0) {
			t.Fatalf("cut at %d: got\n%s\nwant\n%s", cut, lines(got), lines(order[:n]))
		}
		if err == nil {
			// Only a cut between batches reads cleanly.
			if cut != headerLen && !enc.batches[cut] {
				t.Errorf("cut at %d, inside a batch: no error", cut)
			}
			continue
		}
		last := headerLen
		if n > 0 {
			last = ends[n-1]
		}
		if off := brokenAt(t, err); off < last || off > cut {
			t.Errorf("cut at %d: error offset %d, want in [%d, %d]: %v", cut, off, last, cut, err)
		}
	}
}

// TestReusedID reads two goroutines that share a logical id (a writer may
// start a goroutine again under an id, as control's tests do), the first
// one's batches around the second one's: each batch's header places its
// events, whatever the batches of the same id before it in the file.
func TestReusedID(t *testing.T) {
	var a, b Encoder
	file := AppendHeader(nil, testHeader)
	batch := func(e *Encoder, events func(b []byte) []byte) {
		start := len(file)
		file = events(e.StartBatch(file, 7))
		FinishBatch(file[start:])
	}
	batch(&a, func(buf []byte) []byte {
		buf = a.AppendBegin(buf, 1, NoParent)
		return a.AppendRead(buf, 1, 0x10)
	})
	batch(&b, func(buf []byte) []byte {
		buf = b.AppendBegin(buf, 5, NoParent)
		return b.AppendRead(buf, 2, 0x20)
	})
	batch(&a, func(buf []byte) []byte {
		buf = a.AppendRead(buf, 3, 0x10)
		return a.AppendLock(buf, 3, 4, 0x30)
	})
	tr, err := ReadAll(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	const want = `1 g=7 Begin parent=none
1.1 g=7 Read site=1 addr=0x10
1.2 g=7 Read site=3 addr=0x10
3 g=7 Lock site=4 addr=0x30
5 g=7 Begin parent=none
5.1 g=7 Read site=2 addr=0x20
`
	if got := lines(tr.Events); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

// TestFuncPackage: the package of a function as the runtime names it,
// with the linker's escapes undone; no package for a name without one.
func TestFuncPackage(t *testing.T) {
	for _, c := range []struct{ fn, want string }{
		{"net/http.(*Server).Serve", "net/http"},
		{"example.com/dep.Handle.func1", "example.com/dep"},
		{"github.com/stripe/goproxy.(*ProxyHttpServer).ServeHTTP.gowrap2", "github.com/stripe/goproxy"},
		{"gopkg.in/yaml%2ev3.(*decoder).run", "gopkg.in/yaml.v3"},
		{"main.F[...]", "main"},
		{"example.com/g.Map[go.shape.*example.com/x.T]", "example.com/g"},
		{"testing.tRunner", "testing"},
		{"50%zz/p.F", "50%zz/p"}, // not an escape: kept
		{"noPackage", ""},
		{"", ""},
	} {
		if got := FuncPackage(c.fn); got != c.want {
			t.Errorf("FuncPackage(%q) = %q, want %q", c.fn, got, c.want)
		}
	}
}

// TestAppendCreatorCut: AppendCreator cuts a long name to MaxCreatorLen
// bytes.
func TestAppendCreatorCut(t *testing.T) {
	var e Encoder
	long := strings.Repeat("p", 2*MaxCreatorLen) + ".F"
	b := e.AppendCreator(nil, 1, long)
	if len(b) > MaxEventLen+MaxCreatorLen {
		t.Errorf("AppendCreator added %d bytes, want at most %d", len(b), MaxEventLen+MaxCreatorLen)
	}
	if !strings.Contains(string(b), strings.Repeat("p", MaxCreatorLen)) || strings.Contains(string(b), strings.Repeat("p", MaxCreatorLen+1)) {
		t.Errorf("AppendCreator(%d bytes) = %q, want the name cut to %d bytes", len(long), b, MaxCreatorLen)
	}
}
