// Package taken: a goroutine takes the pending set out of its field under
// the mutex, puts a fresh set there in the same critical section, and
// ranges over the one it took after unlocking; others add to whatever set
// the field holds, within a section of the same mutex (hashicorp/raft's
// followerReplication.notifyAll against verifyLeader). Silent. Reported
// beside it: a take that leaves the set in the field, an adder that keeps
// the set past its Unlock, an adder under another mutex, and a take whose
// set is put back in the field. An adder whose entry a constructor makes
// between the load of the set and the write (DataDog/datadog-go's
// aggregator: a.sets[context] = newSetMetric(...)) is silent too; one
// whose constructor releases the mutex and takes it again is reported. So
// is an adder whose entry calls the standard library's leaf functions
// between the load and the write (time.Now, an atomic's Add: centrifuge's
// mapSubscribing): silent.
package taken

import (
	"sync"
	"sync/atomic"
	"time"
)

type call struct{ id int }

type Replica struct {
	mu      sync.Mutex
	other   sync.Mutex
	pending map[*call]struct{}
	kept    map[*call]struct{}
	late    map[*call]struct{}
	foreign map[*call]struct{}
	back    map[*call]struct{}
	made    map[int]*entry
	relock  map[int]*entry
	stamped map[int]*stamp
	gen     atomic.Uint64
}

type stamp struct {
	at  int64
	gen uint64
}

type entry struct{ id int }

func (r *Replica) vote(c *call) {}

// Run makes a replica and runs the adders against the drains.
func Run(c *call) {
	r := &Replica{
		pending: make(map[*call]struct{}),
		kept:    make(map[*call]struct{}),
		late:    make(map[*call]struct{}),
		foreign: make(map[*call]struct{}),
		back:    make(map[*call]struct{}),
		made:    make(map[int]*entry),
		relock:  make(map[int]*entry),
		stamped: make(map[int]*stamp),
	}
	r.Start(c)
}

func (r *Replica) Start(c *call) {
	go r.Add(c)
	go r.AddLate(c)
	go r.AddForeign(c)
	go r.AddMade(c.id)
	go r.AddRelock(c.id)
	go r.AddStamped(c.id)
	r.Drain()
	r.DrainKept()
	r.DrainLate()
	r.DrainForeign()
	r.DrainBack()
	r.DrainMade()
	r.DrainRelock()
	r.DrainStamped()
}

func (r *Replica) Add(c *call) {
	r.mu.Lock()
	r.pending[c] = struct{}{}
	r.kept[c] = struct{}{}
	r.back[c] = struct{}{}
	r.mu.Unlock()
}

// Drain takes the set: silent.
func (r *Replica) Drain() {
	r.mu.Lock()
	n := r.pending
	r.pending = make(map[*call]struct{})
	r.mu.Unlock()
	for c := range n {
		r.vote(c)
	}
}

// DrainKept reads the set but leaves it in the field.
func (r *Replica) DrainKept() {
	r.mu.Lock()
	n := r.kept
	r.mu.Unlock()
	for c := range n { // want `concurrent map iteration and map write`
		r.vote(c)
	}
}

// AddLate reads the set under the mutex and writes it after Unlock: the
// taker of DrainLate may be ranging over it by then.
func (r *Replica) AddLate(c *call) {
	r.mu.Lock()
	m := r.late
	r.mu.Unlock()
	m[c] = struct{}{}
}

func (r *Replica) DrainLate() {
	r.mu.Lock()
	n := r.late
	r.late = make(map[*call]struct{})
	r.mu.Unlock()
	for c := range n { // want `concurrent map iteration and map write`
		r.vote(c)
	}
}

// AddForeign adds under another mutex than the take's.
func (r *Replica) AddForeign(c *call) {
	r.other.Lock()
	r.foreign[c] = struct{}{}
	r.other.Unlock()
}

func (r *Replica) DrainForeign() {
	r.mu.Lock()
	n := r.foreign
	r.foreign = map[*call]struct{}{}
	r.mu.Unlock()
	for c := range n { // want `concurrent map iteration and map write`
		r.vote(c)
	}
}

// DrainBack takes the set and puts it back.
func (r *Replica) DrainBack() {
	r.mu.Lock()
	n := r.back
	r.back = make(map[*call]struct{})
	r.back = n
	r.mu.Unlock()
	for c := range n { // want `concurrent map iteration and map write`
		r.vote(c)
	}
}

func newEntry(id int) *entry { return &entry{id: id} }

// AddMade writes an entry that newEntry makes after the set was read out
// of its field: newEntry releases nothing, so the write is in the same
// section as the read.
func (r *Replica) AddMade(id int) {
	r.mu.Lock()
	r.made[id] = newEntry(id)
	r.mu.Unlock()
}

func (r *Replica) DrainMade() {
	r.mu.Lock()
	n := r.made
	r.made = make(map[int]*entry)
	r.mu.Unlock()
	for id := range n {
		r.vote(&call{id: id})
	}
}

// AddRelock's constructor releases the mutex and takes it again: the set
// it writes may have been taken meanwhile.
func (r *Replica) AddRelock(id int) {
	r.mu.Lock()
	r.relock[id] = r.slowEntry(id)
	r.mu.Unlock()
}

func (r *Replica) slowEntry(id int) *entry {
	r.mu.Unlock()
	defer r.mu.Lock()
	return &entry{id: id}
}

func (r *Replica) DrainRelock() {
	r.mu.Lock()
	n := r.relock
	r.relock = make(map[int]*entry)
	r.mu.Unlock()
	for id := range n { // want `concurrent map iteration and map write`
		r.vote(&call{id: id})
	}
}

// AddStamped's entry reads the clock and a generation counter between the
// load of the set and the write: neither can release the mutex.
func (r *Replica) AddStamped(id int) {
	r.mu.Lock()
	r.stamped[id] = &stamp{at: time.Now().UnixNano(), gen: r.gen.Add(1)}
	r.mu.Unlock()
}

func (r *Replica) DrainStamped() {
	r.mu.Lock()
	n := r.stamped
	r.stamped = make(map[int]*stamp)
	r.mu.Unlock()
	for id := range n {
		r.vote(&call{id: id})
	}
}
