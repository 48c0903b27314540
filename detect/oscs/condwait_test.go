package oscs

import (
	"slices"
	"strings"
	"testing"
)

// condQueue is condq's run: g2 checks the queue (11), waits, and takes
// the item put by g1 (31, then Broadcast); g3 comes later, checks, waits
// and takes the second item. After each Wait the first read is use (60,
// a dereference, in condq an index).
const condQueue = `
1 g=1 Begin parent=none
2 g=1 Fork site=90 child=2
3 g=1 Fork site=91 child=3
4 g=2 Begin parent=1
5 g=3 Begin parent=1
10 g=2 Lock site=10 addr=0x900
10.1 g=2 Read site=11 addr=0x100
20 g=1 Lock site=30 addr=0x900
20.1 g=1 Write site=31 addr=0x100 value=1
21 g=1 Unlock site=32 addr=0x900
22 g=1 CondBroadcast site=33 addr=0x800
23 g=2 CondWait site=12 addr=0x800
23.1 g=2 Read site=use addr=0x100
23.2 g=2 Write site=13 addr=0x100 value=0
24 g=2 Unlock site=14 addr=0x900
30 g=3 Lock site=10 addr=0x900
30.1 g=3 Read site=11 addr=0x100
40 g=1 Lock site=30 addr=0x900
40.1 g=1 Write site=31 addr=0x100 value=1
41 g=1 Unlock site=32 addr=0x900
42 g=1 CondBroadcast site=33 addr=0x800
43 g=3 CondWait site=12 addr=0x800
43.1 g=3 Read site=use addr=0x100
43.2 g=3 Write site=13 addr=0x100 value=0
44 g=3 Unlock site=14 addr=0x900
`

// TestWaitUses: a Cond waited with `if` (the read after Wait is the use)
// pairs g3's check with g1's first put, the write that g3 missed; the
// same with a loop's check after Wait (50, loop-exit) is silent, and so is
// a queue with one consumer (no other goroutine takes the item).
func TestWaitUses(t *testing.T) {
	wrong := strings.ReplaceAll(condQueue, "site=use", "site=60")
	for _, alg := range []Algorithm{Base, Opt} {
		fs := Check(graph(t, wrong), sites, Options{Algorithm: alg})
		var got []string
		for _, f := range fs {
			got = append(got, lines(f))
		}
		if !slices.Equal(got, []string{"10 11 30 31"}) {
			t.Fatalf("%s: findings %q, want the check and the first put", alg, got)
		}
		f := fs[0]
		if f.Sites[0].Line != 11 || f.Sites[1].Line != 31 || !strings.Contains(f.Message, "should Wait be called in a for loop?") {
			t.Errorf("%s: sites %v, message %q", alg, f.Sites, f.Message)
		}
		for _, e := range f.Witnesses[0].Events {
			if e.Role == "unlock-1" {
				t.Errorf("%s: the waiting side's Unlock is in the witness: validation would hold the put until after Wait", alg)
			}
		}
	}

	right := strings.ReplaceAll(condQueue, "site=use", "site=50")
	if got := check(t, right, Options{}); len(got) != 0 {
		t.Errorf("loop's check after Wait: %q, want none", got)
	}

	var one []string
	for _, l := range strings.Split(wrong, "\n") {
		if !strings.Contains(l, "g=3") && !strings.Contains(l, "child=3") {
			one = append(one, l)
		}
	}
	if got := check(t, strings.Join(one, "\n"), Options{}); len(got) != 0 {
		t.Errorf("one consumer: %q, want none", got)
	}
}
