// Package callerlocks: an exported method, run through an interface, that
// the package's own goroutines call only with their session's lock held.
// On those goroutines it holds the lock (the lock sets of each goroutine
// context, several calls up): silent. A goroutine of the package that
// calls it without the lock, a goroutine that starts in it, and an
// exported function that code importing the package may call with no lock
// (the Caller context keeps "holds nothing" for exported functions) are
// reported.
package callerlocks

import "sync"

// Handler is what a session hands its input to.
type Handler interface{ Handle(k int) }

// Table is exported, and so is Handle: code importing the package may
// call it on a Table of its own, holding nothing.
type Table struct{ m map[int]int }

func (t *Table) Handle(k int) { t.m[k] = k }

// Quiet's goroutines call Handle only under s.mu, one of them two calls
// down: silent.
type Quiet struct {
	mu sync.Mutex
	h  Handler
}

func NewQuiet() *Quiet {
	s := &Quiet{h: &Table{m: map[int]int{}}}
	go s.readLoop()
	go s.writeLoop()
	return s
}

func (s *Quiet) readLoop() {
	for i := 0; ; i++ {
		s.mu.Lock()
		s.input(i)
		s.mu.Unlock()
	}
}

func (s *Quiet) input(k int) { s.dispatch(k) }

func (s *Quiet) dispatch(k int) { s.h.Handle(k) }

func (s *Quiet) writeLoop() {
	for i := 0; ; i++ {
		s.mu.Lock()
		s.h.Handle(-i)
		s.mu.Unlock()
	}
}

// Leaky's flusher calls the handler without the lock.
type Leaky struct {
	mu sync.Mutex
	h  Handler
}

type LeakyTable struct{ m map[int]int }

func (t *LeakyTable) Handle(k int) { t.m[k] = k } // want `concurrent map writes: t.m is written here`

func NewLeaky() *Leaky {
	s := &Leaky{h: &LeakyTable{m: map[int]int{}}}
	go s.readLoop()
	go s.flusher()
	return s
}

func (s *Leaky) readLoop() {
	for i := 0; ; i++ {
		s.mu.Lock()
		s.h.Handle(i)
		s.mu.Unlock()
	}
}

func (s *Leaky) flusher() { s.h.Handle(0) }

// Started's second goroutine starts in the handler: it holds nothing.
type Started struct {
	mu sync.Mutex
	t  *StartedTable
}

type StartedTable struct{ m map[int]int }

func (t *StartedTable) Handle(k int) { t.m[k] = k } // want `concurrent map writes: t.m is written here`

func NewStarted() *Started {
	s := &Started{t: &StartedTable{m: map[int]int{}}}
	go s.readLoop()
	go s.t.Handle(1)
	return s
}

func (s *Started) readLoop() {
	for i := 0; ; i++ {
		s.mu.Lock()
		var h Handler = s.t
		h.Handle(i)
		s.mu.Unlock()
	}
}

// Poke is exported: code importing the package calls it holding nothing
// (on its own goroutine, the Caller context), although the package calls
// it only under pokedMu, on its goroutine and in PokeLocked.
var (
	pokedMu sync.Mutex
	poked   = map[int]int{}
)

func StartPoked() { go pokedLoop() }

func pokedLoop() {
	for i := 0; ; i++ {
		pokedMu.Lock()
		Poke(i)
		pokedMu.Unlock()
	}
}

func Poke(k int) { poked[k] = k } // want `concurrent map writes: poked is written here`

func PokeLocked(k int) {
	pokedMu.Lock()
	Poke(k)
	pokedMu.Unlock()
}
