// Package structreuse is a negative control for address reuse, the shape
// of false race and con-uninit reports on go-libp2p-kad-dht (query.go's
// per-query &query{}, pb/message.go's per-call &Message{} and
// &Message_Peer{}; held-out rehearsal 55): parallel subtests each run
// queries, each query an object of its own made with &T{...} whose
// workers make peers of their own with new(T) and write their fields.
// An object one subtest dropped can be collected and its address given to
// the object another subtest makes next, before the shim's GC epochs
// (counted by a finalizer, which runs late) see the collection: the two
// objects then look like one written by two goroutines at once. precog
// test must stay silent: a struct allocated at an instrumented site is an
// allocation event (EvNew) that starts a new location at every word of
// the object.
package structreuse

import "sync"

// A Query is one search's state, made fresh per search.
type Query struct {
	id         int
	terminated bool
	mu         sync.Mutex
	peers      []*Peer
	wg         sync.WaitGroup
	buf        []byte
}

// A Peer is a record made per call.
type Peer struct {
	id   int
	conn int
	next *Peer
}

// NewQuery returns a new query.
func NewQuery(id int) *Query {
	return &Query{id: id, buf: make([]byte, 4096)}
}

// newPeer returns a new peer of query q.
func newPeer(i, q int) *Peer {
	p := new(Peer)
	p.id = i
	p.conn = q
	return p
}

// Run starts n workers, waits for them, terminates q and returns the
// sum of its peers' connections.
func (q *Query) Run(n int) int {
	for i := 0; i < n; i++ {
		q.wg.Add(1)
		go q.spawn(i)
	}
	q.wg.Wait()
	q.terminated = true
	sum := 0
	for _, p := range q.peers {
		sum += p.conn + p.id
	}
	return sum
}

// spawn is a worker: it adds a peer unless q terminated.
func (q *Query) spawn(i int) {
	defer q.wg.Done()
	if q.terminated {
		return
	}
	p := newPeer(i, q.id)
	q.mu.Lock()
	q.peers = append(q.peers, p)
	q.mu.Unlock()
}
