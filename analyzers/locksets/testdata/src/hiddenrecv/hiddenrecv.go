// Package hiddenrecv: an exported method of an unexported type whose
// values never leave the package can only be called by the package, so
// its entry lock set is what the package's call sites hold (memberlist's
// (*suspicion).Confirm, called only under nodeLock). Near misses, with
// the empty entry set: the type's values are converted to an interface,
// returned by an exported function, held in an exported field, embedded
// in another struct, or used as a type argument.
package hiddenrecv

import "sync"

func mark() {}

type Memberlist struct {
	mu     sync.Mutex
	timers map[string]*suspicion
	Exp    *inField
	any    any
	emb    outer
}

type suspicion struct{ n int }

func (s *suspicion) Confirm() {
	mark() // want `^held: Memberlist.mu\(w\)$`
}

func (m *Memberlist) Suspect(node string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.timers[node].Confirm()
	m.any.(*inAny).Confirm()
	returned().Confirm()
	m.Exp.Confirm()
	m.emb.embedded.Confirm()
	use[*asArg](nil).Confirm()
}

type inAny struct{ n int }

func (s *inAny) Confirm() {
	mark() // want `^held: none$`
}

func (m *Memberlist) Remember() { m.any = &inAny{} }

type inResult struct{ n int }

func (s *inResult) Confirm() {
	mark() // want `^held: none$`
}

func returned() *inResult { return Returned() }

func Returned() *inResult { return &inResult{} }

type inField struct{ n int }

func (s *inField) Confirm() {
	mark() // want `^held: none$`
}

type embedded struct{ n int }

func (s *embedded) Confirm() {
	mark() // want `^held: none$`
}

type outer struct{ *embedded }

type asArg struct{ n int }

func (s *asArg) Confirm() {
	mark() // want `^held: none$`
}

func use[T any](t T) T { return t }
