package hb

import (
	"math/rand"
	"testing"
)

// TestOpQueue checks opQueue against a map from event to operation, over
// chunk boundaries, asked as Analyze asks (every push first, then each
// event twice, in order) and as Stream does (pushes a window ahead of the
// asks, each event forgotten after its ask).
func TestOpQueue(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	const n = 5 * opChunk
	want := make(map[int]chanOp)
	for i := 0; i < n; i++ {
		if r.Intn(3) == 0 {
			continue
		}
		op := chanOp{ch: r.Intn(1 << 20), k: r.Intn(1 << 20)}
		switch r.Intn(4) {
		case 0:
			op.send = true
		case 1:
			op.k = -1 // a close
		case 2:
			op.k, op.closed = -1, true
		}
		want[i] = op
	}
	check := func(q *opQueue, i int) {
		t.Helper()
		op, ok := q.at(i)
		w, wok := want[i]
		if ok != wok || op != w {
			t.Fatalf("at(%d) = %+v, %v; want %+v, %v", i, op, ok, w, wok)
		}
	}

	var q opQueue
	for i := 0; i < n; i++ {
		if op, ok := want[i]; ok {
			q.push(i, op)
		}
	}
	for i := 0; i < n; i++ {
		check(&q, i)
		check(&q, i)
	}
	if len(q.chunks) != 1 {
		t.Errorf("after the walk %d chunks are held, want 1", len(q.chunks))
	}

	const window = 700
	var s opQueue
	for head := 0; head < n+window; head++ {
		if i := head - window; i >= 0 {
			check(&s, i)
			s.seek(i + 1)
		}
		if op, ok := want[head]; ok && head < n {
			s.push(head, op)
		}
		if len(s.chunks) > 2 {
			t.Fatalf("at %d, %d chunks are held for a window of %d", head, len(s.chunks), window)
		}
	}
}
