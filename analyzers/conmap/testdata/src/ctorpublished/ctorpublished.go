// Package ctorpublished: the controls of ctorstate. Each constructor runs
// the same state machine of its object's method values, but another
// goroutine reaches the object by another path while it runs: reported.
package ctorpublished

// Global: the constructor stores the object in a package variable before
// the state machine, and Touch writes it through the variable.
type Global struct{ props map[string]int }

var last *Global

func NewGlobal() *Global {
	c := &Global{props: map[string]int{}}
	last = c
	for state := c.negotiate; state != nil; {
		state = state()
	}
	return c
}

type globalState func() globalState

func (c *Global) negotiate() globalState { return c.open }

func (c *Global) open() globalState {
	c.props["open"] = 1 // want `concurrent map writes`
	return nil
}

// Touch writes the last object's properties.
func Touch() { last.props["touch"] = 2 } // want `concurrent map writes`

// RaceGlobal touches the last object on another goroutine while a
// constructor runs.
func RaceGlobal() {
	go Touch()
	NewGlobal()
}

// Watched: the constructor starts a goroutine on the object before the
// state machine.
type Watched struct{ props map[string]int }

func NewWatched() *Watched {
	c := &Watched{props: map[string]int{}}
	go c.watch()
	for state := c.negotiate; state != nil; {
		state = state()
	}
	return c
}

type watchedState func() watchedState

func (c *Watched) negotiate() watchedState { return c.open }

func (c *Watched) open() watchedState {
	c.props["open"] = 1 // want `concurrent map writes`
	return nil
}

func (c *Watched) watch() { c.props["watch"] = 1 } // want `concurrent map writes`

// Escaped: a state keeps its next method value in the object, and Resume
// calls it on whatever goroutine calls Resume.
type Escaped struct {
	props map[string]int
	next  func() escapedState
}

func NewEscaped() *Escaped {
	c := &Escaped{props: map[string]int{}}
	for state := c.negotiate; state != nil; {
		state = state()
	}
	return c
}

type escapedState func() escapedState

func (c *Escaped) negotiate() escapedState {
	c.next = c.open
	return nil
}

func (c *Escaped) open() escapedState {
	c.props["open"] = 1 // want `concurrent map writes`
	return nil
}

// Resume runs the kept state.
func (c *Escaped) Resume() { c.next() }

// RaceEscaped resumes one object's kept state on two goroutines.
func RaceEscaped() {
	e := NewEscaped()
	go e.Resume()
	e.Resume()
}

// Pooled: the constructor takes its object from take, which returns a
// new one from newPooled or, through keep, the one it is handed: not a
// fresh object at every return, so two goroutines that rerun the state
// machine on one pooled object touch it both.
type Pooled struct{ props map[string]int }

func newPooled() *Pooled { return &Pooled{props: map[string]int{}} }

func keep(p *Pooled) *Pooled { return p }

func take(p *Pooled) (*Pooled, error) {
	if p == nil {
		return newPooled(), nil
	}
	return keep(p), nil
}

// NewPooled runs the state machine on what take returns.
func NewPooled(p *Pooled) *Pooled {
	c, _ := take(p)
	for state := c.negotiate; state != nil; {
		state = state()
	}
	return c
}

type pooledState func() pooledState

func (c *Pooled) negotiate() pooledState { return c.open }

func (c *Pooled) open() pooledState {
	c.props["open"] = 1 // want `concurrent map writes`
	return nil
}

// RacePooled reruns one pooled object's state machine on two goroutines.
func RacePooled() {
	old := NewPooled(nil)
	go NewPooled(old)
	NewPooled(old)
}

// Reassigned: start's receiver, which its deferred closure captures, is
// replaced by the object the constructor is handed before the state
// machine runs on it: the captured variable is stored twice, and two
// goroutines that rerun the state machine on one old object touch it both.
type Reassigned struct{ props map[string]int }

// NewReassigned runs the state machine on a new object, or on old.
func NewReassigned(old *Reassigned) *Reassigned {
	c := &Reassigned{props: map[string]int{}}
	c.start(old)
	return c
}

func (c *Reassigned) start(old *Reassigned) {
	defer func() {
		if c == nil {
			panic("no object")
		}
	}()
	if old != nil {
		c = old
	}
	for state := c.negotiate; state != nil; {
		state = state()
	}
}

type reassignedState func() reassignedState

func (c *Reassigned) negotiate() reassignedState { return c.open }

func (c *Reassigned) open() reassignedState {
	c.props["open"] = 1 // want `concurrent map writes`
	return nil
}

// RaceReassigned reruns one old object's state machine on two goroutines.
func RaceReassigned() {
	old := NewReassigned(nil)
	go NewReassigned(old)
	NewReassigned(old)
}

// Swapped: start's captured receiver is replaced through its address by
// swap, a store StoresTo does not see: the cell escapes.
type Swapped struct{ props map[string]int }

// NewSwapped runs the state machine on a new object, or on old.
func NewSwapped(old *Swapped) *Swapped {
	c := &Swapped{props: map[string]int{}}
	c.start(old)
	return c
}

func swap(p **Swapped, old *Swapped) {
	if old != nil {
		*p = old
	}
}

func (c *Swapped) start(old *Swapped) {
	defer func() {
		if c == nil {
			panic("no object")
		}
	}()
	swap(&c, old)
	for state := c.negotiate; state != nil; {
		state = state()
	}
}

type swappedState func() swappedState

func (c *Swapped) negotiate() swappedState { return c.open }

func (c *Swapped) open() swappedState {
	c.props["open"] = 1 // want `concurrent map writes`
	return nil
}

// RaceSwapped reruns one old object's state machine on two goroutines.
func RaceSwapped() {
	old := NewSwapped(nil)
	go NewSwapped(old)
	NewSwapped(old)
}

// Handed: the captured variable's one store is made by the goroutine that
// made the object, which goes on using it: the function that declares the
// variable loads it on its own goroutine, so two goroutines touch the one
// object the goroutine's call made.
type Handed struct{ props map[string]int }

func newHanded() *Handed { return &Handed{props: map[string]int{}} }

func (c *Handed) open() {
	c.props["open"] = 1 // want `concurrent map writes`
}

// RaceHanded opens the goroutine's object on both goroutines.
func RaceHanded() {
	var c *Handed
	ready := make(chan bool)
	go func() {
		x := newHanded()
		c = x
		ready <- true
		x.open()
	}()
	<-ready
	c.open()
}
