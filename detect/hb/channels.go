package hb

import (
	"sort"

	"github.com/precog-dev/precog/shim/trace"
)

// A chanOp is a send or receive on a channel: the k-th send, or the k-th
// receive that got a value, of channel ch (an index in channels.sends).
// A receive that found the channel closed has closed set and no k.
type chanOp struct {
	ch     int
	k      int
	send   bool
	closed bool
}

// channels matches the sends and receives of the trace, per channel.
type channels struct {
	sites        *trace.SiteTable
	current      map[uint64]int // address -> channel
	ops          opQueue        // the operations the events recorded, in event order
	sends, recvs [][]uint64     // per channel: the logical ids of the goroutines of its sends and receives, in order
	elems        [][]uint32     // per channel: the fingerprints of its sends' elements (Event.Peer), in order; 0 unknown
	sendAt       [][]int        // per channel: the event indices of its sends, in order
	last         int            // the last event added
	pairs        []pairing      // per channel: which sends receives were paired with
	caps         []int          // per channel: its capacity, -1 if its make was not recorded
	walked       []int          // per channel: how many of its receives that got a value the walk has passed
	// sendVC and recvVC are the release clocks of sends and receives
	// that another event will acquire, deleted when it has.
	sendVC, recvVC map[chanOp]vclock
}

func newChannels(sites *trace.SiteTable) *channels {
	return &channels{sites: sites, current: make(map[uint64]int),
		sendVC: make(map[chanOp]vclock), recvVC: make(map[chanOp]vclock)}
}

// matchChannels numbers the channel operations of events. A channel is its
// address from one make to the next make at the same address.
func matchChannels(events []trace.Event, sites *trace.SiteTable) *channels {
	c := newChannels(sites)
	for i := range events {
		c.add(i, &events[i])
	}
	return c
}

func (c *channels) channel(addr uint64) int {
	ch, ok := c.current[addr]
	if !ok {
		ch = len(c.sends)
		c.current[addr] = ch
		c.sends = append(c.sends, nil)
		c.recvs = append(c.recvs, nil)
		c.elems = append(c.elems, nil)
		c.sendAt = append(c.sendAt, nil)
		c.pairs = append(c.pairs, pairing{})
		c.caps = append(c.caps, -1)
		c.walked = append(c.walked, 0)
	}
	return ch
}

// add numbers event i, which comes after every event added before.
func (c *channels) add(i int, ev *trace.Event) {
	c.last = i
	var send bool
	switch ev.Kind {
	case trace.EvChanMake:
		delete(c.current, ev.Addr)
		c.caps[c.channel(ev.Addr)] = int(ev.Value)
		return
	case trace.EvChanSend:
		send = true
	case trace.EvChanRecv:
	case trace.EvSelect:
		if ev.Arg < 0 || ev.Addr == 0 {
			return
		}
		send = caseIsSend(c.sites, ev.Site, int(ev.Arg))
	case trace.EvChanClose:
		c.ops.push(i, chanOp{ch: c.channel(ev.Addr), k: -1})
		return
	default:
		return
	}
	ch := c.channel(ev.Addr)
	switch {
	case send:
		c.ops.push(i, chanOp{ch: ch, k: len(c.sends[ch]), send: true})
		c.sends[ch] = append(c.sends[ch], ev.Goroutine)
		c.elems[ch] = append(c.elems[ch], uint32(ev.Peer))
		c.sendAt[ch] = append(c.sendAt[ch], i)
	case ev.Value == 0:
		c.ops.push(i, chanOp{ch: ch, k: -1, closed: true})
	default:
		c.ops.push(i, chanOp{ch: ch, k: len(c.recvs[ch])})
		c.recvs[ch] = append(c.recvs[ch], ev.Goroutine)
	}
}

// caseIsSend reports whether case index of the select at site is a send,
// from the site table's Cases ("r", "s" or "d" per case).
func caseIsSend(sites *trace.SiteTable, site uint32, index int) bool {
	s, ok := sites.Lookup(site)
	return ok && index < len(s.Cases) && s.Cases[index] == 's'
}

// completes reports whether some send's completion waits for receive r.
func (c *channels) completes(r chanOp) bool {
	return c.caps[r.ch] >= 0 && r.k+c.caps[r.ch] < len(c.sends[r.ch])
}

// waits reports whether send s waits for a receive before it completes
// (whether or not that receive was seen).
func (c *channels) waits(s chanOp) bool {
	return c.caps[s.ch] >= 0 && s.k-c.caps[s.ch] >= 0
}

// passed reports whether the walk has passed receive r (receives are
// numbered in event order, and walked in it).
func (c *channels) passed(r chanOp) bool {
	return c.walked[r.ch] > r.k
}

// completion returns the receive that send s waits for before it
// completes: the (k-cap)-th.
func (c *channels) completion(s chanOp) (chanOp, bool) {
	k := s.k - c.caps[s.ch]
	if c.caps[s.ch] < 0 || k < 0 || k >= len(c.recvs[s.ch]) {
		return chanOp{}, false
	}
	return chanOp{ch: s.ch, k: k}, true
}

// A pairing is which sends of a channel the walk has paired receives
// with: every send before lo, and those in taken. byElem holds, by
// element, the unpaired sends before indexed in order (and some paired
// ones, dropped when met); it is built only once a receive did not get
// the send in its own place, so a channel whose orders agree costs no map.
// unsure is set when a receive was paired before the window reached
// pairHorizon past it (a Stream with a small window): the pairs from it on
// may differ from Analyze's.
type pairing struct {
	lo      int
	taken   map[int]struct{}
	byElem  map[uint32][]int
	indexed int
	unsure  bool
}

// maxTaken bounds a pairing's taken: past it, the earliest unpaired send
// counts as paired (a send whose receive was not recorded, or got
// another's element, would hold every later pair in taken).
const maxTaken = 1 << 14

// pairHorizon is how many events after a receive pair looks for its send
// (a select's send case is recorded after the send, at most as far after
// the receive as its goroutine was held from recording it): a send
// further on is not a candidate, so that Stream, whose window reaches
// past it, pairs as Analyze does.
const pairHorizon = DefaultWindow / 2

// pair returns the send that receive number k of channel ch, event i,
// whose element's fingerprint is elem (0 unknown), got, and marks it
// paired; -1 if none. Sends and receives are recorded in the order the
// channel took them only for plain operations: a select records its case
// after the operation, and so may another goroutine's receive
// (bench/RESULTS.md, "Channel order for selects"), so the k-th receive
// recorded may have got another send's element than the k-th send
// recorded. Among the sends recorded before event i+pairHorizon, pair
// takes, in turn: the k-th send if its element is elem (or elem is
// unknown); the earliest unpaired send of the element (of any, if elem is
// unknown); the earliest of an unknown element; the k-th send; the
// earliest unpaired one. When both orders are the channel's, that is the
// k-th. Two sends of equal fingerprints are paired in their order.
func (c *channels) pair(ch, k int, elem uint32, i int) int {
	p := &c.pairs[ch]
	es, at := c.elems[ch], c.sendAt[ch]
	n := p.lo + sort.SearchInts(at[min(p.lo, len(at)):], i+pairHorizon) // the candidates are before n
	free := func(j int) bool {
		_, t := p.taken[j]
		return j >= p.lo && j < n && !t
	}
	j := -1
	switch {
	case free(k) && (elem == 0 || es[k] == elem):
		j = k
	case elem == 0:
		if free(p.lo) {
			j = p.lo
		}
	default:
		if j = p.find(es, n, elem, free); j < 0 {
			j = p.find(es, n, 0, free)
		}
	}
	switch {
	case j >= 0:
	case free(k):
		j = k
	case free(p.lo):
		j = p.lo
	default:
		return -1
	}
	if j < p.indexed {
		// Drop it from its element's queue, where it is first unless
		// an earlier send of the element is still unpaired.
		if q := p.byElem[es[j]]; len(q) > 0 && q[0] == j {
			if len(q) == 1 {
				delete(p.byElem, es[j])
			} else {
				p.byElem[es[j]] = q[1:]
			}
		}
	}
	p.take(j)
	return j
}

// find returns the earliest unpaired send before n whose element is
// elem, or -1.
func (p *pairing) find(es []uint32, n int, elem uint32, free func(int) bool) int {
	if p.byElem == nil {
		p.byElem = make(map[uint32][]int)
		p.indexed = p.lo
	}
	for ; p.indexed < n; p.indexed++ {
		if free(p.indexed) {
			p.byElem[es[p.indexed]] = append(p.byElem[es[p.indexed]], p.indexed)
		}
	}
	q := p.byElem[elem]
	for len(q) > 0 && !free(q[0]) && q[0] < n {
		q = q[1:]
	}
	if len(q) == 0 {
		delete(p.byElem, elem)
		return -1
	}
	p.byElem[elem] = q
	if q[0] >= n {
		return -1
	}
	return q[0]
}

// take marks send j paired.
func (p *pairing) take(j int) {
	if j != p.lo {
		if p.taken == nil {
			p.taken = make(map[int]struct{})
		}
		p.taken[j] = struct{}{}
	} else {
		p.lo++
	}
	for len(p.taken) > 0 {
		if _, ok := p.taken[p.lo]; ok {
			delete(p.taken, p.lo)
		} else if len(p.taken) <= maxTaken {
			break
		}
		p.lo++
	}
}

// pairSure reports whether the matching has seen every event that pair
// at event i looks at.
func (c *channels) pairSure(i int) bool { return c.last >= i+pairHorizon-1 }

// sendClock returns the clock that a receive acquires from send k of
// channel ch: the send's release clock, or, for a select's send case that
// the trace records after the send completed and so after this receive,
// the sender's clock before that select.
func (c *channels) sendClock(a *analyzer, ch, k int) vclock {
	s := chanOp{ch: ch, k: k, send: true}
	if vc, ok := c.sendVC[s]; ok {
		delete(c.sendVC, s)
		return vc
	}
	return a.current(c.sends[ch][k])
}

// recvClock returns the clock of receive r that the completion of a send
// acquires: r's release clock, or, if the walk has not reached r, the
// receiver's clock now, which holds every event of the receiver before r.
// reached says which: a completion that got the receiver's clock now
// acquires again at the sender's later events, until the walk has passed r
// (completeSends).
func (c *channels) recvClock(a *analyzer, r chanOp) (vc vclock, reached bool) {
	if vc, ok := c.recvVC[r]; ok {
		delete(c.recvVC, r)
		return vc, true
	}
	return a.current(c.recvs[r.ch][r.k]), false
}

// current returns the clock, now, of the goroutine whose logical id is id,
// at an event of it that the walk has not reached; the zero clock if that
// goroutine has not started.
func (a *analyzer) current(id uint64) vclock {
	gi, ok := a.byID[id]
	if !ok {
		return vclock{}
	}
	return a.gs[gi].vc.copy(a.tk)
}

// opQueue holds the channel operations that the matching numbered ahead of
// the walk, in event order, until the walk has passed their events. The
// walk asks for its events' operations in event order, so a cursor finds
// them: no map from event to operation (golang-set's Test_IterConcurrent,
// 4 M channel events, kept 0.35 GB in one; bench/RESULTS.md), and the
// chunks the walk has passed are freed.
type opQueue struct {
	chunks [][]opEntry // chunks[0][head:] and the later chunks are the operations not passed yet
	head   int
}

// opChunk is how many operations a chunk of an opQueue holds.
const opChunk = 1024

// An opEntry is event i's chanOp, packed in 16 bytes: ch is the channel,
// or ^channel for a send; k is the operation's number, -1 for a close, -2
// for a receive that found the channel closed. Channels and per-channel
// counts fit in 32 bits: a channel's 2^31 sends would take 16 GiB of
// channels.sends first.
type opEntry struct {
	i     int
	ch, k int32
}

// push adds event i's operation op; i comes after every event pushed before.
func (q *opQueue) push(i int, op chanOp) {
	e := opEntry{i: i, ch: int32(op.ch), k: int32(op.k)}
	if op.send {
		e.ch = ^e.ch
	}
	if op.closed {
		e.k = -2
	}
	n := len(q.chunks)
	if n == 0 || len(q.chunks[n-1]) == opChunk {
		q.chunks = append(q.chunks, make([]opEntry, 0, opChunk))
		n++
	}
	q.chunks[n-1] = append(q.chunks[n-1], e)
}

// at returns event i's operation, if it recorded one, and forgets those of
// the events before i: i must not come before an event asked for before.
func (q *opQueue) at(i int) (chanOp, bool) {
	e, ok := q.seek(i)
	if !ok || e.i != i {
		return chanOp{}, false
	}
	op := chanOp{ch: int(e.ch), k: int(e.k)}
	if e.ch < 0 {
		op.ch, op.send = int(^e.ch), true
	}
	if e.k == -2 {
		op.k, op.closed = -1, true
	}
	return op, true
}

// seek forgets the operations of the events before i and returns the
// first one left, if any.
func (q *opQueue) seek(i int) (opEntry, bool) {
	for len(q.chunks) > 0 {
		c := q.chunks[0]
		for q.head < len(c) && c[q.head].i < i {
			q.head++
		}
		if q.head < len(c) {
			return c[q.head], true
		}
		if len(q.chunks) == 1 {
			// The chunk the next push fills: keep it.
			return opEntry{}, false
		}
		q.chunks[0] = nil
		q.chunks = q.chunks[1:]
		q.head = 0
	}
	return opEntry{}, false
}

// A latestEvent is what ahead saw last of a goroutine: the index of its
// latest event other than an EvGCEpoch (i; -1 if none), of its latest
// event (any), and whether that is an EvEnd.
type latestEvent struct {
	i, any int
	end    bool
}

// unrecvCands are the goroutines that may have received, unrecorded, a
// send whose receive is not in the trace: those whose latest event is no
// EvEnd, by the index of that event.
type unrecvCands struct {
	last []int    // the index of each one's latest event, ascending
	ids  []uint64 // their logical ids, in that order
	cum  []vclock // cum[k] is the join of the clocks of ids[:k], built as asked for
}

// unrecvClock returns the clock that the completion of an unbuffered
// send at event i acquires when its receive is not in the trace (the
// shim records a receive after it returned, and the process may exit
// before its goroutine does): the join of the clocks of every goroutine
// that could have received it unrecorded, one that has no EvEnd and
// recorded nothing from i on, at its latest event. The receiver is one
// of them unless it is not instrumented or recorded events after the
// send's seq, before its receive (then the send gets no edge from it),
// and all it recorded came before its receive; the others add order that
// the run may not have had (see the package doc's "Approximations"). Only once ahead has seen every event
// (a.eof): a goroutine's later events may be past Stream's window.
//
// The goroutines' clocks are final: they have no event after i, which
// the walk has passed. The joins are kept per prefix of the candidates
// by their latest event, so that many such sends (a channel another
// package receives from, uninstrumented) cost one join per candidate.
func (a *analyzer) unrecvClock(i int) vclock {
	u := a.unrecv
	if u == nil {
		u = &unrecvCands{cum: []vclock{{}}}
		for id, l := range a.lastOf {
			if !l.end {
				u.ids = append(u.ids, id)
			}
		}
		sort.Slice(u.ids, func(x, y int) bool { return a.lastOf[u.ids[x]].any < a.lastOf[u.ids[y]].any })
		for _, id := range u.ids {
			u.last = append(u.last, a.lastOf[id].any)
		}
		a.unrecv = u
	}
	k := sort.SearchInts(u.last, i)
	for len(u.cum) <= k {
		j := len(u.cum) - 1
		c := u.cum[j]
		a.add(&c, a.current(u.ids[j]))
		u.cum = append(u.cum, c)
	}
	return u.cum[k]
}
