// Package ptrwrapper: a method called through an interface that holds a
// pointer to its receiver, where the method has a value receiver or is
// promoted from an embedded field, runs through go/ssa's synthetic
// wrapper ((*T).m calling T.m); its entry set is taken at the wrapper's
// call sites (looplab/fsm's transitionerStruct.transition, called through
// the transitioner interface with eventMu held).
package ptrwrapper

import "sync"

func mark() {}

type stepper interface{ step(*FSM) }

// byValue has a value receiver; the interface holds a *byValue.
type byValue struct{}

func (byValue) step(f *FSM) {
	mark() // want `^held: FSM.mu\(w\)$`
}

type inner struct{}

func (*inner) step(f *FSM) {
	mark() // want `^held: FSM.mu\(w\)$`
}

// promoted gets step from its embedded inner.
type promoted struct{ inner }

// spawned is started as a goroutine through the interface: its wrapper's
// call site is a go statement, so nothing is held.
type spawned struct{}

func (spawned) step(f *FSM) {
	mark() // want `^held: none$`
}

// both is called through the interface with and without the lock.
type both struct{}

func (both) step(f *FSM) {
	mark() // want `^held: none$`
}

type FSM struct {
	mu sync.Mutex
	s  stepper
	p  stepper
	g  stepper
	b  stepper
}

func New() *FSM {
	return &FSM{s: &byValue{}, p: &promoted{}, g: &spawned{}, b: &both{}}
}

func (f *FSM) Transition() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.s.step(f)
	f.p.step(f)
	f.b.step(f)
	go f.g.step(f)
}

func (f *FSM) Unlocked() {
	f.b.step(f)
}
