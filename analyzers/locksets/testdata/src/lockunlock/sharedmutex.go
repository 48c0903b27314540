package lockunlock

import "sync"

// Broker's subscriptions keep a pointer to the broker's one mutex
// (pubsub's pstest): every store to sub.mu is &b.mu, through the
// unexported constructor's parameter, so locking sub.mu locks Broker.mu.
type Broker struct {
	mu   sync.Mutex
	subs []*sub
}

type sub struct {
	mu   *sync.Mutex
	msgs map[string]int
}

func newSub(mu *sync.Mutex) *sub { return &sub{mu: mu, msgs: map[string]int{}} }

func (b *Broker) Add() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.subs = append(b.subs, newSub(&b.mu))
	mark() // want `^held: Broker.mu\(w\)$`
}

func (s *sub) Deliver() {
	s.mu.Lock()
	mark() // want `^held: Broker.mu\(w\)$`
	s.mu.Unlock()
	mark() // want `^held: none$`
}

// The controls: each keeps its own name, the pointer field's.

// ownSub's mutex is a new one per subscription: not Broker.mu.
type ownSub struct{ mu *sync.Mutex }

func (b *Broker) AddOwn() *ownSub { return &ownSub{mu: new(sync.Mutex)} }

func (s *ownSub) Deliver() {
	s.mu.Lock()
	mark() // want `^held: ownSub.mu\(w\)$`
	s.mu.Unlock()
}

// nilSub's field is also stored nil.
type nilSub struct{ mu *sync.Mutex }

func (b *Broker) AddNil() *nilSub { return &nilSub{mu: &b.mu} }

func (s *nilSub) Detach() { s.mu = nil }

func (s *nilSub) Deliver() {
	s.mu.Lock()
	mark() // want `^held: nilSub.mu\(w\)$`
	s.mu.Unlock()
}

// paramSub's mutex comes from an exported function's caller, unknown.
type paramSub struct{ mu *sync.Mutex }

func NewParamSub(mu *sync.Mutex) *paramSub { return &paramSub{mu: mu} }

func (s *paramSub) Deliver() {
	s.mu.Lock()
	mark() // want `^held: paramSub.mu\(w\)$`
	s.mu.Unlock()
}

// twoSub's field holds either a Broker's mutex or a T's.
type twoSub struct{ mu *sync.Mutex }

func (b *Broker) AddTwo(t *T) (*twoSub, *twoSub) {
	return &twoSub{mu: &b.mu}, &twoSub{mu: &t.mu}
}

func (s *twoSub) Deliver() {
	s.mu.Lock()
	mark() // want `^held: twoSub.mu\(w\)$`
	s.mu.Unlock()
}

// escSub's field has its address handed to a function, which may store
// any mutex there.
type escSub struct{ mu *sync.Mutex }

func (b *Broker) AddEsc() *escSub {
	s := &escSub{mu: &b.mu}
	setMutex(&s.mu)
	return s
}

func setMutex(p **sync.Mutex) { *p = new(sync.Mutex) }

func (s *escSub) Deliver() {
	s.mu.Lock()
	mark() // want `^held: escSub.mu\(w\)$`
	s.mu.Unlock()
}
