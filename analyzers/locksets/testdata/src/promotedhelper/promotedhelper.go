// Package promotedhelper: a type that embeds a pointer to another gets,
// for each method promoted from it, a go/ssa wrapper ((*Universal).get
// calling (*Mux).get), which the call graph lists among the method's
// callers. A wrapper of an unexported method that nothing calls and
// nothing takes as a value never runs it (no interface outside the
// package can name the method), so the method's entry set is taken at its
// other call sites (pion/ice's UDPMuxDefault.getConn, every call of which
// holds m.mu, and UniversalUDPMuxDefault, which embeds *UDPMuxDefault).
// A wrapper that is called, through an interface of the package, is a
// call site like any other.
package promotedhelper

import "sync"

func mark() {}

type Mux struct {
	mu    sync.Mutex
	conns map[string]int
}

func (m *Mux) Get(k string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.get(k)
}

func (m *Mux) worker(k string) {
	m.mu.Lock()
	_ = m.get(k)
	m.mu.Unlock()
}

func (m *Mux) get(k string) int {
	mark() // want `^held: Mux.mu\(w\)$`
	return m.conns[k]
}

// Universal gets get from *Mux through a wrapper nothing calls.
type Universal struct {
	*Mux
}

func NewUniversal() *Universal { return &Universal{Mux: &Mux{}} }

// Other's help is called under its lock, and also through the helper
// interface on a Wrapped, whose wrapper runs it without the lock.
type Other struct{ mu sync.Mutex }

func (o *Other) Run() {
	o.mu.Lock()
	o.help()
	o.mu.Unlock()
}

func (o *Other) help() {
	mark() // want `^held: none$`
}

type helper interface{ help() }

type Wrapped struct{ *Other }

func call(h helper) { h.help() }

func Use() { call(&Wrapped{Other: &Other{}}) }

// Taken: a method value of the wrapper may be called anywhere.
type Taken struct{ *Valued }

type Valued struct{ mu sync.Mutex }

func (v *Valued) Run() {
	v.mu.Lock()
	v.help()
	v.mu.Unlock()
}

func (v *Valued) help() {
	mark() // want `^held: none$`
}

func Later(t *Taken) func() { return t.help }
