package trace

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAppendAllocs checks that every Append method appends without
// allocating when the buffer has room, as the shim's hot path needs.
func TestAppendAllocs(t *testing.T) {
	tr := sample(t)
	buf := make([]byte, 0, 4096)
	var e Encoder
	allocs := testing.AllocsPerRun(10, func() {
		b := e.StartBatch(buf[:0], 7)
		for _, ev := range tr.Events {
			b = appendKind(&e, b, ev)
		}
		FinishBatch(b)
	})
	if allocs != 0 {
		t.Errorf("appending the sample allocated %v times", allocs)
	}
}

// TestMaxEventLen checks that MaxEventLen bounds every kind at its widest,
// and is reached.
func TestMaxEventLen(t *testing.T) {
	longest := 0
	for k := evNone + 1; k < numKinds; k++ {
		// Addr: the address whose field is widest, 1 + the zigzag
		// difference of 2^63-1 (addrCode).
		ev := Event{Kind: k, Seq: math.MaxUint64, Site: math.MaxUint32, Addr: 1<<63 - 1,
			Value: 1, Arg: math.MinInt64, Peer: math.MaxUint64}
		switch k {
		case EvWrite, EvAtomicLoad, EvAtomicStore, EvChanMake, EvGCEpoch:
			ev.Value = math.MaxUint64
		case EvTestEnd:
			ev.Value = uint64(Skip)
		}
		var e Encoder
		n := len(appendKind(&e, nil, ev))
		if n > MaxEventLen {
			t.Errorf("%v takes %d bytes, more than MaxEventLen %d", k, n, MaxEventLen)
		}
		longest = max(longest, n)
	}
	if longest != MaxEventLen {
		t.Errorf("the longest event takes %d bytes, MaxEventLen is %d", longest, MaxEventLen)
	}
}

// TestFinishBatch checks the length field at the lengths where a byte
// of it changes, and that the reader reads such batches.
func TestFinishBatch(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 1<<16 - 1, 1 << 16, 1<<24 - 1, 1 << 24, MaxBatchLen} {
		var f [batchLenWidth]byte
		putBatchLen(f[:], n)
		if l := binary.LittleEndian.Uint32(f[:]); l != uint32(n) {
			t.Errorf("length field for %d bytes of events decodes as %d", n, l)
		}
	}
	var e Encoder
	b := e.StartBatch(nil, 1<<40)
	hdr := len(b)
	b = e.AppendFuncEnter(b, 1)
	FinishBatch(b)
	m := 1
	for i := 0; i < 3; i++ { // goroutine, seq, sub
		_, w := binary.Uvarint(b[m:])
		m += w
	}
	if l := binary.LittleEndian.Uint32(b[m:]); l != 2 || m+batchLenWidth != hdr {
		t.Errorf("batch % x: length %d ends at %d, want 2 ending at %d", b, l, m+batchLenWidth, hdr)
	}
	// A batch of 3 MiB, whose length needs all four bytes.
	file := AppendHeader(nil, testHeader)
	start := len(file)
	file = e.StartBatch(file, 3)
	name := strings.Repeat("x", MaxStringLen)
	n := 0
	for ; len(file) < 3<<20; n++ {
		file = e.AppendTestStart(file, uint64(n+1), name)
	}
	FinishBatch(file[start:])
	_, evs, err := readAll(file)
	if err != nil || len(evs) != n {
		t.Errorf("read %d events of a 3 MiB batch, error %v", len(evs), err)
	}
	for _, bad := range [][]byte{nil, {'X', 0, 0, 0, 0, 0}, {'B', 0x80}, {'B', 1, 0x80}, {'B', 1, 0, 0, 0x80}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("FinishBatch(% x) did not panic", bad)
				}
			}()
			FinishBatch(bad)
		}()
	}
}

// TestHeader checks the header's round trip, including an unknown start
// time and strings cut to MaxStringLen.
func TestHeader(t *testing.T) {
	long := strings.Repeat("x", MaxStringLen+10)
	for _, tc := range []struct{ in, want Header }{
		{testHeader, testHeader},
		{Header{PID: 1}, Header{PID: 1}},
		{Header{Test: long, Package: "p"}, Header{Test: long[:MaxStringLen], Package: "p"}},
	} {
		var b bytes.Buffer
		if err := WriteHeader(&b, tc.in); err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(&b)
		if err != nil {
			t.Fatal(err)
		}
		if r.Header() != tc.want {
			t.Errorf("header %.200v read back as %.200v", tc.want, r.Header())
		}
		if _, err := r.Next(); err.Error() != "EOF" {
			t.Errorf("Next after a header alone: %v", err)
		}
		back, err := ParseText(strings.NewReader(tc.want.String()))
		if err != nil || back.Header != tc.want {
			t.Errorf("header %.200v parsed back from text as %.200v, %v", tc.want, back, err)
		}
	}
}

// TestGo122 builds this package's files as the shim's injected module
// does: a module at language version go1.22, and with nothing but the
// standard library to import. go vet's stdversion check then catches
// standard-library API newer than go1.22, which the go1.26 compiler
// accepts at any language version.
func TestGo122(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module github.com/precog-dev/precog/shim\n\ngo 1.22\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "trace"), 0o777); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "trace", f), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"build", "./..."}, {"vet", "-stdversion", "./..."}} {
		cmd := exec.Command(gotool, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s in a go1.22 module: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestPut checks that PutAccess and PutWrite encode as the Append methods
// do, and share their delta state.
func TestPut(t *testing.T) {
	var ea, ep Encoder
	var want []byte
	got := make([]byte, 0, 1<<12)
	addrs := []uintptr{0xc000012340, 0xc000012348, 0xc000012340, 8, 0xffffffffffffffff, 0}
	for i, a := range addrs {
		site, value := uint32(i*1000), uint64(1)<<(9*i)
		want = ea.AppendRead(want, site, a)
		want = ea.AppendWrite(want, site, a, value)
		want = ea.AppendMapIter(want, site, a)
		got = got[:len(got)+ep.PutAccess((*[Window]byte)(got[len(got):len(got)+Window]), EvRead, site, a)]
		got = got[:len(got)+ep.PutWrite((*[Window]byte)(got[len(got):len(got)+Window]), site, a, value)]
		got = got[:len(got)+ep.PutAccess((*[Window]byte)(got[len(got):len(got)+Window]), EvMapIter, site, a)]
		want = ea.AppendRead(want, site+1, a+1)
		got = got[:len(got)+ep.PutRead((*[Window]byte)(got[len(got):len(got)+Window]), site+1, a+1)]
		if !bytes.Equal(got, want) {
			t.Fatalf("after address %#x: Put gave % x, Append % x", a, got, want)
		}
	}
	if Window <= MaxEventLen || Window&(Window-1) != 0 {
		t.Errorf("Window %d must be a power of two above MaxEventLen %d", Window, MaxEventLen)
	}
}

// TestPutRead checks that PutRead, whose address difference has its first
// bytes written out, encodes as AppendRead does for differences of every
// length around each of its boundaries, aligned and not, either way, and
// for sites whose high bits take one byte or more.
func TestPutRead(t *testing.T) {
	var ea, ep Encoder
	var want, got []byte
	var w [Window]byte
	const base = 0xc000012340
	for _, site := range []uint32{0, 31, 32, 4095, 4096, 1 << 20, 1<<32 - 1} {
		for k := 0; k < 64; k++ {
			for _, d := range []uint64{1<<k - 1, 1 << k, 1<<k + 1, 8 << k, 8<<k - 8, 8<<k + 8} {
				for _, addr := range []uint64{base + d, base - d} {
					ea.AppendRead(nil, 1, base) // a previous address in the batch
					ep.PutRead(&w, 1, base)
					want = ea.AppendRead(want[:0], site, uintptr(addr))
					got = append(got[:0], w[:ep.PutRead(&w, site, uintptr(addr))]...)
					if !bytes.Equal(got, want) {
						t.Fatalf("site %d, address %#x after %#x: PutRead gave % x, AppendRead % x", site, addr, uint64(base), got, want)
					}
				}
			}
		}
	}
}

// lengthBounds returns the numbers around each power of two, 0 and the
// largest uint64 included: every length of a uvarint and each of its
// boundaries, for the tests of the encoders whose first bytes are written
// out.
func lengthBounds() []uint64 {
	var b []uint64
	for k := range 64 {
		b = append(b, 1<<k-1, 1<<k, 1<<k+1)
	}
	return append(b, 1<<64-1)
}

// TestPutWrite checks that PutWrite, whose address difference and value
// have their first bytes written out, encodes as AppendWrite does for
// differences of every length around each of its boundaries, aligned and
// not, either way, values of every length, and sites whose high bits take
// one byte or more.
func TestPutWrite(t *testing.T) {
	var ea, ep Encoder
	var want, got []byte
	var w [Window]byte
	const base = 0xc000012340
	values := lengthBounds()
	for _, site := range []uint32{0, 31, 32, 4095, 4096, 1 << 20, 1<<32 - 1} {
		for k := 0; k < 64; k++ {
			for _, d := range []uint64{1<<k - 1, 1 << k, 1<<k + 1, 8 << k, 8<<k - 8, 8<<k + 8} {
				for _, addr := range []uint64{base + d, base - d} {
					for _, value := range values {
						ea.AppendRead(nil, 1, base) // a previous address in the batch
						ep.PutRead(&w, 1, base)
						want = ea.AppendWrite(want[:0], site, uintptr(addr), value)
						got = append(got[:0], w[:ep.PutWrite(&w, site, uintptr(addr), value)]...)
						if !bytes.Equal(got, want) || ea != ep {
							t.Fatalf("site %d, address %#x after %#x, value %#x: PutWrite gave % x (%+v), AppendWrite % x (%+v)",
								site, addr, uint64(base), value, got, ep, want, ea)
						}
					}
				}
			}
		}
	}
}

// TestPutSyncAddr checks that PutSyncAddr, whose fields have their first
// bytes written out, encodes as AppendSyncAddr does for every kind it
// takes: each field in turn through every length and boundary (the seq
// delta, the site, the address difference aligned and not, either way,
// the address 0, the argument), the others short or long, and then random
// lengths of all at once, on one pair of encoders whose delta state
// carries from event to event.
func TestPutSyncAddr(t *testing.T) {
	var taken []Kind
	for k := range Kind(numKinds) {
		if syncAddrExtra[k] != notSyncAddr {
			taken = append(taken, k)
		}
	}
	if len(taken) < 20 {
		t.Fatalf("only %d kinds for PutSyncAddr: %v", len(taken), taken)
	}
	var ea, ep Encoder
	var want []byte
	var w [Window]byte
	seq := uint64(0)
	check := func(k Kind, delta uint64, site uint32, addr, arg uint64) {
		t.Helper()
		if k == EvAtomicLoad && delta&1 == 0 {
			delta = 0 // a load that took no new seq
		}
		seq += delta
		want = ea.AppendSyncAddr(want[:0], k, seq, site, uintptr(addr), arg)
		got := w[:ep.PutSyncAddr(&w, k, seq, site, uintptr(addr), arg)]
		if !bytes.Equal(got, want) || ea != ep {
			t.Fatalf("%v seq +%#x site %#x address %#x arg %#x: PutSyncAddr gave % x (%+v), AppendSyncAddr % x (%+v)",
				k, delta, site, addr, arg, got, ep, want, ea)
		}
	}
	const base = 0xc000012340
	bounds := lengthBounds()
	var sites []uint32
	for _, b := range bounds {
		if b < 1<<32 {
			sites = append(sites, uint32(b))
		}
	}
	var addrs []uint64
	for _, d := range bounds {
		addrs = append(addrs, base+d, base-d, base+8*d, base-8*d)
	}
	addrs = append(addrs, 0, base+1<<63)
	for _, k := range taken {
		for _, long := range []bool{false, true} {
			delta, site, addr, arg := uint64(1), uint32(9), uint64(base+8), uint64(1)
			if long {
				delta, site, addr, arg = 1<<40, 1<<30, base+1<<44, 1<<60
			}
			for _, d := range bounds {
				check(k, d, site, addr, arg)
			}
			for _, s := range sites {
				check(k, delta, s, addr, arg)
			}
			for _, a := range addrs {
				check(k, delta, site, base, arg) // the previous address
				check(k, delta, site, a, arg)
			}
			for _, v := range bounds {
				check(k, delta, site, addr, v)
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		k := taken[r.IntN(len(taken))]
		check(k, bounds[r.IntN(len(bounds))], sites[r.IntN(len(sites))], addrs[r.IntN(len(addrs))], bounds[r.IntN(len(bounds))])
	}
}

// TestPutShort checks PutShortRead and PutShortWrite, the shim's inlined
// reads and writes: where they write, the bytes and the encoder's state
// after them are PutRead's and PutWrite's; they write exactly where those
// take three or four bytes (an aligned difference of at most 63 words
// either way, a site below 4096, a write's value below 128), and nothing
// elsewhere.
func TestPutShort(t *testing.T) {
	const base = 0xc000100000
	for _, d := range []int64{0, 8, -8, 63 * 8, -63 * 8, 64 * 8, -64 * 8, -65 * 8, 4, -4, 1 << 20, -1 << 40} {
		for _, site := range []uint32{0, 31, 32, 4095, 4096, 1 << 20} {
			for _, value := range []uint64{0, 1, 127, 128, 1 << 40} {
				addr := uintptr(base + d)
				short := d%8 == 0 && d >= -64*8 && d < 64*8 && site < 4096
				for _, write := range []bool{false, true} {
					var es, el Encoder // the short methods' and the long ones'
					var w0, w1 [Window]byte
					es.PutRead(&w0, 1, base) // a previous address in the batch
					el.PutRead(&w0, 1, base)
					w0 = [Window]byte{}
					var ok bool
					var n int
					if write {
						ok = es.PutShortWrite(&w0, site, addr, value)
						n = el.PutWrite(&w1, site, addr, value)
					} else {
						ok = es.PutShortRead(&w0, site, addr)
						n = el.PutRead(&w1, site, addr)
					}
					want := short && (!write || value < 128)
					if ok != want {
						t.Fatalf("d %d site %d value %d write %v: short %v, want %v", d, site, value, write, ok, want)
					}
					if !ok {
						if w0 != ([Window]byte{}) {
							t.Fatalf("d %d site %d write %v: wrote % x when it declined", d, site, write, w0[:8])
						}
						continue
					}
					if short := 3 + b2i(write); n != short || !bytes.Equal(w0[:n], w1[:n]) {
						t.Fatalf("d %d site %d value %d write %v: short % x, PutRead/PutWrite % x", d, site, value, write, w0[:short], w1[:n])
					}
					if es != el {
						t.Fatalf("d %d site %d write %v: encoder %+v after the short form, %+v after the long", d, site, write, es, el)
					}
				}
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestAppendSyncAddr checks the shim's entry points, AppendSyncAddr and
// PutSyncAddr, against the typed Append method of every kind they cover,
// and that they refuse the others, the values of a Kind that name none
// included.
func TestAppendSyncAddr(t *testing.T) {
	for k := 0; k < 1<<8; k++ {
		k := Kind(k)
		covered := false
		if k != evNone && k < numKinds {
			f := kinds[k].fields
			covered = !kinds[k].implicit && len(f) >= 2 && len(f) <= 3 && f[0] == fSite && f[1] == fAddr
		}
		if !covered {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("AppendSyncAddr(%v) did not panic", k)
					}
				}()
				var e Encoder
				e.AppendSyncAddr(nil, k, 1, 2, 3, 0)
			}()
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("PutSyncAddr(%v) did not panic", k)
					}
				}()
				var e Encoder
				e.PutSyncAddr(new([Window]byte), k, 1, 2, 3, 0)
			}()
			continue
		}
		f := kinds[k].fields
		for _, arg := range []uint64{0, 1, 300, uint64(1<<64 - 5)} {
			ev := Event{Kind: k, Seq: 7, Site: 9, Addr: 0xc000010000}
			switch {
			case len(f) == 2:
			case f[2] == fDelta:
				ev.Arg = int64(arg)
			case f[2] == fOK:
				ev.Value = arg & 1
			case f[2] == fElem:
				arg = uint64(uint32(arg))
				ev.Peer = arg
			case f[2] == fChild:
				ev.Peer = arg
			default:
				ev.Value = arg
			}
			var typed, generic Encoder
			want := appendKind(&typed, nil, ev)
			got := generic.AppendSyncAddr(nil, k, ev.Seq, ev.Site, uintptr(ev.Addr), arg&^(boolMask(f)))
			if !bytes.Equal(got, want) {
				t.Errorf("%v arg %d: AppendSyncAddr wrote % x, the typed method % x", k, arg, got, want)
			}
			// PutSyncAddr, after an access that leaves delta state
			// behind, against AppendSyncAddr after the same access.
			var put Encoder
			w := make([]byte, 2*Window)
			for i := range w {
				w[i] = 0xff // what lies past the event must not matter
			}
			n := put.PutAccess((*[Window]byte)(w), EvRead, 3, 0xc000000008)
			n2 := put.PutSyncAddr((*[Window]byte)(w[n:]), k, ev.Seq, ev.Site, uintptr(ev.Addr), arg&^(boolMask(f)))
			generic = Encoder{}
			want = generic.AppendSyncAddr(generic.AppendRead(nil, 3, 0xc000000008), k, ev.Seq, ev.Site, uintptr(ev.Addr), arg&^(boolMask(f)))
			if got := w[:n+n2]; !bytes.Equal(got, want) || put != generic {
				t.Errorf("%v arg %d: PutSyncAddr wrote % x (encoder %+v), AppendSyncAddr % x (%+v)", k, arg, got, put, want, generic)
			}
		}
	}
}

// TestPutChanRecv checks PutChanRecv, the shim's entry point for
// EvChanRecv, against AppendChanRecv.
func TestPutChanRecv(t *testing.T) {
	for _, ok := range []bool{false, true} {
		for _, elem := range []uint32{0, 1, 300, 1<<32 - 1} {
			var put, app Encoder
			w := make([]byte, 2*Window)
			for i := range w {
				w[i] = 0xff
			}
			n := put.PutAccess((*[Window]byte)(w), EvRead, 3, 0xc000000008)
			n2 := put.PutChanRecv((*[Window]byte)(w[n:]), 7, 9, 0xc000010000, ok, elem)
			want := app.AppendChanRecv(app.AppendRead(nil, 3, 0xc000000008), 7, 9, 0xc000010000, ok, elem)
			if got := w[:n+n2]; !bytes.Equal(got, want) || put != app {
				t.Errorf("ok %v elem %d: PutChanRecv wrote % x, AppendChanRecv % x", ok, elem, got, want)
			}
		}
	}
}

// TestPutSelect checks PutSelect, the shim's entry point for EvSelect,
// against AppendSelect: a default case (index -1, address 0), and cases
// whose fields take one byte and their widest.
func TestPutSelect(t *testing.T) {
	for _, c := range []struct {
		index int
		addr  uintptr
		ok    bool
		elem  uint32
	}{
		{-1, 0, false, 0},
		{0, 0xc000010000, true, 1},
		{15, 0xffffffffffffffff, false, 1<<32 - 1},
		{300, 8, true, 300},
	} {
		var put, app Encoder
		w := make([]byte, 2*Window)
		for i := range w {
			w[i] = 0xff
		}
		n := put.PutAccess((*[Window]byte)(w), EvRead, 3, 0xc000000008)
		n2 := put.PutSelect((*[Window]byte)(w[n:]), 1<<40, 1<<31, c.index, c.addr, c.ok, c.elem)
		want := app.AppendSelect(app.AppendRead(nil, 3, 0xc000000008), 1<<40, 1<<31, c.index, c.addr, c.ok, c.elem)
		if got := w[:n+n2]; !bytes.Equal(got, want) || put != app {
			t.Errorf("%+v: PutSelect wrote % x (encoder %+v), AppendSelect % x (%+v)", c, got, put, want, app)
		}
	}
}

// boolMask clears all but the low bit of an ok argument.
func boolMask(f []field) uint64 {
	if len(f) > 2 && f[2] == fOK {
		return ^uint64(1)
	}
	return 0
}

// TestCompact checks the compact form of reads and writes: that every
// site and address difference, aligned or not, small or at the ends of
// the range, reads back as written, what it costs in bytes where most
// accesses are, and that the reader still takes the plain form.
func TestCompact(t *testing.T) {
	sites := []uint32{0, 1, compactSiteMask, compactSiteMask + 1, 1000, 4095, 4096, 1<<20 + 17, math.MaxUint32}
	addrs := []uint64{0xc000012340, 0xc000012348, 0xc000012340, 0xc000012341, 0xc00001233a, 0, 1 << 63, 1<<63 + 3,
		math.MaxUint64, 8, math.MaxUint64 - 7, 0x7fffffffffffffff, 0xc000012340}
	var e Encoder
	b := e.StartBatch(nil, 1)
	var want []Event
	w := new([Window]byte)
	for i, a := range addrs {
		for j, site := range sites {
			value := uint64(i*j) << (i % 9 * 7)
			switch (i + j) % 4 {
			case 0:
				b = e.AppendRead(b, site, uintptr(a))
			case 1:
				b = e.AppendWrite(b, site, uintptr(a), value)
			case 2:
				b = append(b, w[:e.PutRead(w, site, uintptr(a))]...)
			case 3:
				b = append(b, w[:e.PutWrite(w, site, uintptr(a), value)]...)
			}
			ev := Event{Kind: EvRead, Goroutine: 1, Sub: uint64(len(want) + 1), Site: site, Addr: a}
			if (i+j)%2 == 1 {
				ev.Kind, ev.Value = EvWrite, value
			}
			want = append(want, ev)
		}
	}
	// The plain form of a read and a write, which version 8 wrote (its
	// address field 1 + the zigzag difference since version 12).
	b = append(b, byte(EvRead), 3, byte(zigzag(8)+1))
	b = append(b, byte(EvWrite), 3, byte(zigzag(-8)+1), 5)
	want = append(want, Event{Kind: EvRead, Goroutine: 1, Sub: uint64(len(want) + 1), Site: 3, Addr: 0xc000012348},
		Event{Kind: EvWrite, Goroutine: 1, Sub: uint64(len(want) + 2), Site: 3, Addr: 0xc000012340, Value: 5})
	FinishBatch(b)
	_, got, err := readAll(append(AppendHeader(nil, testHeader), b...))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d events, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: read %+v, want %+v", i, got[i], want[i])
		}
	}

	// A read at a site below 4096, 8 bytes after the previous address,
	// takes 3 bytes (the plain form: 4); a write of a small value 4.
	var f Encoder
	f.addr = 0xc000012340
	if n := len(f.AppendRead(nil, 1000, 0xc000012348)); n != 3 {
		t.Errorf("a read at site 1000, 8 bytes on, takes %d bytes, want 3", n)
	}
	if n := len(f.AppendWrite(nil, 1000, 0xc000012350, 1)); n != 4 {
		t.Errorf("a write of 1 at site 1000, 8 bytes on, takes %d bytes, want 4", n)
	}

	// The compact atomics, in a trace of their own, through each of the
	// writers' entry points; then an atomic store in the plain form,
	// which version 15 wrote.
	e = Encoder{}
	b = e.StartBatch(nil, 2)
	want = want[:0]
	for i, a := range addrs {
		for j, site := range sites {
			seq := uint64(len(want) + 1)
			ev := Event{Kind: EvAtomicLoad, Goroutine: 2, Seq: seq, Sub: 1, Site: site, Addr: a, Value: uint64(i*j) << (i % 9 * 7)}
			if (i+j)%2 == 1 {
				ev.Kind, ev.Sub = EvAtomicStore, 0
			}
			switch (i + j) % 3 {
			case 0:
				b = e.AppendSyncAddr(b, ev.Kind, seq, site, uintptr(a), ev.Value)
			case 1:
				b = append(b, w[:e.PutSyncAddr(w, ev.Kind, seq, site, uintptr(a), ev.Value)]...)
			case 2:
				b = e.AppendEvent(b, ev)
			}
			want = append(want, ev)
		}
	}
	b = append(b, byte(EvAtomicStore), 1, 3, byte(zigzag(8)+1), 5)
	want = append(want, Event{Kind: EvAtomicStore, Goroutine: 2, Seq: uint64(len(want) + 1), Site: 3, Addr: 0xc000012348, Value: 5})
	FinishBatch(b)
	if _, got, err = readAll(append(AppendHeader(nil, testHeader), b...)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("atomics: read %d events, want %d:\n%v\nwant\n%v", len(got), len(want), got, want)
	}
	// An atomic load at a site below 1024, 8 bytes after the previous
	// address, takes 5 bytes with a small value (the plain form: 6).
	f.seq = 1
	if n := len(f.AppendAtomicLoad(nil, 2, 1000, 0xc000012358, 1)); n != 5 {
		t.Errorf("an atomic load of 1 at site 1000, 8 bytes on, takes %d bytes, want 5", n)
	}
}

// TestZeroAddress checks the address field of the address 0 (addrCode):
// a select that took its default case and a time.Sleep (no object) take
// one byte for it and leave the previous address where it was, so that
// the next event is coded against the object before them; an address
// 2^63 from the previous one, whose code would wrap to 0, reads back as
// itself; and a non-zero address still becomes the previous address.
func TestZeroAddress(t *testing.T) {
	const a = 0xc000012340
	var e Encoder
	b := e.StartBatch(nil, 1)
	b = e.AppendLock(b, 1, 10, a)
	zero := len(b)
	b = e.AppendSelect(b, 2, 11, -1, 0, false, 0)
	b = e.AppendSleep(b, 3, 12, 0, 0)
	w := new([Window]byte)
	b = append(b, w[:e.PutSyncAddr(w, EvAtomicStore, 4, 13, a+8, 1)]...)
	b = append(b, w[:e.PutSelect(w, 5, 11, -1, 0, false, 0)]...)
	b = append(b, w[:e.PutSyncAddr(w, EvUnlock, 6, 14, a, 0)]...)
	far := uint64(a) + 1<<63
	b = e.AppendAtomicLoad(b, 7, 15, uintptr(far), 2)
	b = e.AppendAtomicLoad(b, 8, 15, uintptr(far+8), 3)
	b = e.AppendMapRead(b, 16, 0)
	b = e.AppendMapWrite(b, 17, uintptr(far+8))
	FinishBatch(b)
	_, got, err := readAll(append(AppendHeader(nil, testHeader), b...))
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{a, 0, 0, a + 8, 0, a, far, far + 8, 0, far + 8}
	if len(got) != len(want) {
		t.Fatalf("read %d events, want %d", len(got), len(want))
	}
	for i, ev := range got {
		if ev.Addr != want[i] {
			t.Errorf("event %d (%v): address %#x, want %#x", i, ev.Kind, ev.Addr, want[i])
		}
	}

	// The bytes: a select's default case is kind, seq, site, case, the
	// address field, ok and elem, one byte each; a Sleep kind, seq,
	// site, address and value. The AtomicStore after them is coded 8
	// bytes after the Lock: one byte.
	var f Encoder
	f.seq, f.addr = 1, a
	if n := len(f.AppendSelect(nil, 2, 11, -1, 0, false, 0)); n != 7 {
		t.Errorf("a select's default case takes %d bytes, want 7", n)
	}
	if n := len(f.AppendSleep(nil, 3, 12, 0, 0)); n != 5 {
		t.Errorf("a Sleep without a clock takes %d bytes, want 5", n)
	}
	if f.addr != a {
		t.Errorf("the previous address after them is %#x, want the Lock's %#x", f.addr, a)
	}
	if n := len(f.AppendAtomicStore(nil, 4, 13, a+8, 1)); n != 5 {
		t.Errorf("an AtomicStore of 1, 8 bytes after the Lock, takes %d bytes, want 5", n)
	}
	if got[3].Kind != EvAtomicStore || b[zero] != byte(EvSelect) {
		t.Fatalf("events out of place: %v, % x", got[3], b[zero:zero+2])
	}
}

// TestAtomicLoadPlace checks an atomic load's seq (see "Order"): a load may
// carry the seq of another goroutine's sync event or its own goroutine's
// last (a difference of 0 on the wire), reads back after that seq, at Sub
// 1 or at its goroutine's next Sub, and the goroutine's events after it
// count on from there, in this batch and in a batch that starts after it
// (its header's place); ReadAll merges them after the sync event whose seq
// they carry and before the next. Any other sync event with its
// goroutine's last seq is damage.
func TestAtomicLoadPlace(t *testing.T) {
	const a = 0xc000012340
	var e1, e2 Encoder
	b := e1.StartBatch(nil, 1)
	b = e1.AppendLock(b, 1, 10, a)
	b = e1.AppendRead(b, 11, a+8)
	b = e1.AppendUnlock(b, 2, 12, a)
	b = e1.AppendRead(b, 11, a+8)
	FinishBatch(b)
	file := append(AppendHeader(nil, testHeader), b...)
	b = e2.StartBatch(nil, 2)
	b = e2.AppendAtomicLoad(b, 1, 13, a+16, 5) // the Lock's seq
	b = e2.AppendRead(b, 11, a+8)
	b = e2.AppendAtomicLoad(b, 1, 13, a+16, 5) // its own seq again: difference 0
	FinishBatch(b)
	file = append(file, b...)
	b = e2.StartBatch(nil, 2) // a batch whose header's place is (1, 3)
	b = e2.AppendRead(b, 11, a+8)
	w := new([Window]byte)
	b = append(b, w[:e2.PutSyncAddr(w, EvAtomicLoad, 2, 13, a+16, 6)]...) // the Unlock's
	b = e2.AppendAtomicStore(b, 3, 14, a+16, 7)
	FinishBatch(b)
	file = append(file, b...)

	tr, err := ReadAll(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	want := `1 g=1 Lock site=10 addr=0xc000012340
1.1 g=1 Read site=11 addr=0xc000012348
1.1 g=2 AtomicLoad site=13 addr=0xc000012350 value=5
1.2 g=2 Read site=11 addr=0xc000012348
1.3 g=2 AtomicLoad site=13 addr=0xc000012350 value=5
1.4 g=2 Read site=11 addr=0xc000012348
2 g=1 Unlock site=12 addr=0xc000012340
2.1 g=1 Read site=11 addr=0xc000012348
2.1 g=2 AtomicLoad site=13 addr=0xc000012350 value=6
3 g=2 AtomicStore site=14 addr=0xc000012350 value=7
`
	if got := lines(tr.Events); got != want {
		t.Errorf("ReadAll gave\n%s\nwant\n%s", got, want)
	}
	if e2.seq != 3 || e2.sub != 0 {
		t.Errorf("the encoder's place after the store is (%d, %d), want (3, 0)", e2.seq, e2.sub)
	}

	// The text form keeps a load's Sub.
	for _, ev := range tr.Events {
		back, err := parseEvent(ev.String())
		if err != nil || back != ev {
			t.Errorf("%s read back as %v, %v", ev, back, err)
		}
	}

	// A Lock with the goroutine's last seq is damage.
	var e3 Encoder
	b = e3.StartBatch(nil, 1)
	b = e3.AppendLock(b, 1, 10, a)
	b = e3.AppendUnlock(b, 1, 12, a)
	FinishBatch(b)
	if _, err := ReadAll(bytes.NewReader(append(AppendHeader(nil, testHeader), b...))); err == nil || !strings.Contains(err.Error(), "does not come after") {
		t.Errorf("an Unlock with its goroutine's last seq read with error %v, want one that says the seq does not come after", err)
	}
}

// TestAppendID: appendID writes what binary.AppendUvarint does, for ids of
// every length around its two unrolled ones (nine and ten bytes), the ids
// of real goroutines, and into a slice without room for ten bytes.
func TestAppendID(t *testing.T) {
	ids := []uint64{0, 1, 127, 128, 1<<49 - 1, 1 << 49, 1<<56 - 1, 1 << 56, 1<<56 + 0x5a5a, 1<<63 - 1, 1 << 63,
		1<<63 + 0x0123456789abcdef, math.MaxUint64 - 1, math.MaxUint64, NoParent,
		ChildID(0, 7, 0), ChildID(1, 7, 3), TestID("TestX", 0), AdoptedID(5)}
	for _, id := range ids {
		want := binary.AppendUvarint([]byte{0xee}, id)
		if got := appendID([]byte{0xee}, id); !bytes.Equal(got, want) {
			t.Errorf("appendID(%#x) = %x, want %x", id, got, want)
		}
		if got := appendID(make([]byte, 1, 64), id)[1:]; !bytes.Equal(got, want[1:]) {
			t.Errorf("appendID(%#x) with room = %x, want %x", id, got, want[1:])
		}
	}
}
