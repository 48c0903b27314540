package conmem

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The trace's order is not always one of happens-before's: the shim
// records a send when it arrives, so on an unbuffered channel the
// sender's accesses after the send (5.1 below), which package hb orders
// after the receive the send waits for, come in the trace before the
// receiver's events that precede that receive (6.1), and so happen after
// them (the Go memory model: a receive from an unbuffered channel is
// synchronized before the completion of the send). Each test has the
// shape with an unbuffered channel (%[1]d = 0), where the pair is
// ordered, and its twin with a buffered one (capacity 1), whose send
// does not wait and leaves the pair unordered. check compares
// CheckStream's findings with Check's on both.
const unbufferedShape = `
1 g=1 Begin parent=none
1.1 g=1 %[2]s
2 g=1 ChanMake site=30 addr=0xc0 cap=%[1]d
3 g=1 Fork site=1 child=2
4 g=2 Begin parent=1
5 g=1 ChanSend site=31 addr=0xc0 elem=7
5.1 g=1 %[3]s
6 g=2 ChanRecv site=32 addr=0xd0 ok=true elem=9
6.1 g=2 %[4]s
7 g=2 ChanRecv site=32 addr=0xc0 ok=true elem=7
8 g=2 End
`

var unbufferedChans = []site{{id: 30, kind: "make-chan"}, {id: 31, kind: "send"}, {id: 32, kind: "recv"}}

// An index read after the send and the receiver's write before the
// receive: ordered (the write happens before the read).
func TestUnbufferedIndex(t *testing.T) {
	sites := append(slices.Clip(indexSites), unbufferedChans...)
	for c, want := range [][]string{nil, {"con-index k.go:10(index) k.go:12(write)"}} {
		expect(t, check(t, fmt.Sprintf(unbufferedShape, c, "Write site=12 addr=0x100 value=1",
			"Read site=10 addr=0x100", "Write site=12 addr=0x100 value=3"), sites, Options{}), want...)
	}
}

// A map read after the send and the receiver's map write before the
// receive.
func TestUnbufferedMap(t *testing.T) {
	sites := append(slices.Clip(mapSites), unbufferedChans...)
	for c, want := range [][]string{nil, {"con-map k.go:11(map-write) k.go:10(map-read)"}} {
		expect(t, check(t, fmt.Sprintf(unbufferedShape, c, "MapWrite site=11 addr=0x300",
			"MapRead site=10 addr=0x300", "MapWrite site=11 addr=0x300"), sites, Options{}), want...)
	}
}

// A dereference after the send and the receiver's nil store before the
// receive: the dereference read the nil (the last write that happens
// before it) and did not crash, so it is checked, as when the nil store
// comes first in the trace (TestNullReadObservedNil). The write at 1.1
// stored non-nil.
func TestUnbufferedNull(t *testing.T) {
	for c, want := range [][]string{nil, {"con-null k.go:12(deref) k.go:13(nil-store)"}} {
		expect(t, check(t, fmt.Sprintf(unbufferedShape, c, "Write site=10 addr=0x100 value=1",
			"Read site=12 addr=0x100", "Write site=13 addr=0x100 value=0"), nullSites, Options{}), want...)
	}
}

// A nil store wp of g3, ordered by a channel before the receiver's
// non-nil write (20.1, g2) before its receive, and the sender's
// dereference rp after the send (9.1, g1): the non-nil write, which lies
// between the two in happens-before, comes after rp in the trace; wp
// comes before rp (5.1) or after it (10.1).
func TestUnbufferedNullOverwritten(t *testing.T) {
	const text = `
1 g=1 Begin parent=none
1.1 g=1 Write site=10 addr=0x100 value=1
2 g=1 ChanMake site=30 addr=0xc0 cap=%[1]d
3 g=1 Fork site=1 child=2
4 g=1 Fork site=2 child=3
5 g=3 Begin parent=1
%[2]s
7 g=2 Begin parent=1
9 g=1 ChanSend site=31 addr=0xc0 elem=7
9.1 g=1 Read site=12 addr=0x100
%[3]s
20 g=2 ChanRecv site=32 addr=0xd0 ok=true elem=9
20.1 g=2 Write site=10 addr=0x100 value=2
21 g=2 ChanRecv site=32 addr=0xc0 ok=true elem=7
22 g=2 End
`
	before := []any{"5.1 g=3 Write site=13 addr=0x100 value=0\n6 g=3 ChanSend site=31 addr=0xd0 elem=9", ""}
	after := []any{"", "10 g=3 ChanRecv site=32 addr=0xe0 ok=true elem=5\n10.1 g=3 Write site=13 addr=0x100 value=0\n11 g=3 ChanSend site=31 addr=0xd0 elem=9"}
	for _, wp := range [][]any{before, after} {
		for c, want := range [][]string{nil, {"con-null k.go:12(deref) k.go:13(nil-store)"}} {
			expect(t, check(t, fmt.Sprintf(text, append([]any{c}, wp...)...), nullSites, Options{}), want...)
		}
	}
}

// The receiver stores nil (6.1) and then non-nil (6.2) before its
// receive: the sender's dereference after the send (5.1) saw the
// non-nil, which the nil store's goroutine's next write (wp-f) puts
// between the two.
func TestUnbufferedNullNextWrite(t *testing.T) {
	for c, want := range [][]string{nil, {"con-null k.go:12(deref) k.go:13(nil-store)"}} {
		expect(t, check(t, fmt.Sprintf(unbufferedShape, c, "Write site=10 addr=0x100 value=1",
			"Read site=12 addr=0x100", "Write site=13 addr=0x100 value=0\n6.2 g=2 Write site=10 addr=0x100 value=2"), nullSites, Options{}), want...)
	}
}

// More dereferences waiting for their goroutine's next sync event than
// CheckStream keeps (maxOpen): the oldest are judged early, with what
// the walk knew then, here the same as Check.
func TestStreamMaxOpen(t *testing.T) {
	var b strings.Builder
	b.WriteString("1 g=1 Begin parent=none\n2 g=1 Fork site=1 child=2\n3 g=2 Begin parent=1\n")
	for i := range maxOpen + 10 {
		fmt.Fprintf(&b, "3.%d g=2 Write site=13 addr=%#x value=0\n", i+1, 0x1000+8*i)
	}
	b.WriteString("4 g=1 ChanMake site=30 addr=0xc0 cap=0\n")
	for i := range maxOpen + 10 {
		fmt.Fprintf(&b, "4.%d g=1 Read site=12 addr=%#x\n", i+1, 0x1000+8*i)
	}
	expect(t, check(t, b.String(), nullSites, Options{}), "con-null k.go:12(deref) k.go:13(nil-store)")
}
