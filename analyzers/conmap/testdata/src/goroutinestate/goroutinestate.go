// Package goroutinestate keeps a state per goroutine, found through the
// goroutine's id in a table (a goroutine-local storage, as precog's shim
// keeps its own). Two goroutines that each note in their own state are not
// reported, also when one keeps its state's id (a number) in a variable it
// captures: a number hands nobody the state (the shim's TestHanded), nor
// does a state a goroutine stores to a variable that only it and code
// that never runs with the other read. A state one goroutine hands
// to another (Pointers) or to the goroutine that started it (Parent)
// through a variable both capture is shared, and reported.
package goroutinestate

import (
	"runtime"
	"sync"
	"sync/atomic"
)

type state struct {
	goid atomic.Uint64
	id   uint64
	seen map[int]bool
}

var table [64]atomic.Pointer[state]

var states struct {
	mu    sync.Mutex
	count uint64
	free  []*state
}

// goid reads the running goroutine's id from its stack's first line.
func goid() uint64 {
	var b [64]byte
	s := b[:runtime.Stack(b[:], false)]
	var n uint64
	for _, c := range s[len("goroutine "):] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + uint64(c-'0')
	}
	return n
}

// cur returns the running goroutine's state.
func cur() *state {
	id := goid()
	if g := table[id%64].Load(); g != nil && g.goid.Load() == id {
		return g
	}
	states.mu.Lock()
	defer states.mu.Unlock()
	var g *state
	if n := len(states.free); n > 0 {
		g = states.free[n-1]
		states.free = states.free[:n-1]
	} else {
		g = &state{}
	}
	states.count++
	g.id = states.count
	clear(g.seen)
	g.goid.Store(id)
	table[id%64].Store(g)
	return g
}

// Note records k once per goroutine.
func Note(k int) {
	g := cur()
	if g.seen[k] {
		return
	}
	if g.seen == nil {
		g.seen = make(map[int]bool)
	}
	g.seen[k] = true
}

// Numbers: each goroutine notes in its own state; one keeps its id in a
// variable it captures.
func Numbers() uint64 {
	var id uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		Note(1)
		id = cur().id
	}()
	go func() {
		Note(2)
	}()
	<-done
	return id
}

// Own: a goroutine keeps its state in a variable only it reads.
func Own() {
	var mine *state
	go func() {
		mine = cur()
		mine.seen[1] = true
	}()
	go func() {
		Note(3)
	}()
}

// Pointers: a goroutine hands its state to another through a variable
// both capture, and both note in it.
func Pointers() {
	var p *state
	ready := make(chan struct{})
	go func() {
		p = cur()
		close(ready)
		p.seen[1] = true // want `concurrent map writes: p.seen is written here and by func literal in Pointers`
	}()
	go func() {
		<-ready
		p.seen[2] = true // want `concurrent map writes: p.seen is written here and by func literal in Pointers`
	}()
}

// Parent: a goroutine hands its state to the goroutine that started it,
// which notes in it too.
func Parent() {
	var p *state
	ready := make(chan struct{})
	go func() {
		p = cur()
		close(ready)
		p.seen[1] = true // want `concurrent map writes: p.seen is written here and by Parent`
	}()
	<-ready
	p.seen[3] = true // want `concurrent map writes: p.seen is written here and by func literal in Parent`
}
