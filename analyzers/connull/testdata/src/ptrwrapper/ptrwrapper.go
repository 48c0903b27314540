// Package ptrwrapper: a method with a value receiver, called through an
// interface that holds a pointer (so through go/ssa's wrapper (*T).m),
// holds the locks held where the interface method is called (looplab/fsm:
// transitionerStruct.transition reads f.transition under eventMu, which
// Event holds where it stores nil; Run starts all three methods). Silent;
// the same method called through the interface without the lock is
// reported.
package ptrwrapper

import "sync"

type stepper interface{ step(f *FSM) }

type stepImpl struct{}

func (stepImpl) step(f *FSM) {
	if f.next == nil {
		return
	}
	f.next()
}

type looseImpl struct{}

func (looseImpl) step(f *FSM) {
	if f.loose == nil {
		return
	}
	f.loose() // want `f\.loose may be nil when called here: \(\*FSM\)\.Event stores nil to it concurrently`
}

type FSM struct {
	mu    sync.Mutex
	next  func()
	loose func()
	s     stepper
	l     stepper
}

func New() *FSM { return &FSM{s: &stepImpl{}, l: &looseImpl{}} }

func (f *FSM) Event(cancel bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next, f.loose = func() {}, func() {}
	if cancel {
		f.next, f.loose = nil, nil
		return
	}
	f.s.step(f)
}

func (f *FSM) Transition() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.s.step(f)
}

func (f *FSM) Peek() {
	f.l.step(f)
}

func Run(f *FSM) {
	go f.Event(true)
	go f.Transition()
	go f.Peek()
}
