// Package constructor: writes to an object allocated in the function, or
// handed down by every caller, are local until the object escapes; from
// the go statement that shares it on, they are not.
package constructor

type T struct {
	n    int
	name string
}

func (t *T) run() {
	_ = t.n // want `^read T.n: shared$`
}

func New() *T {
	t := &T{}
	t.n = 1 // want `^write T.n: local$`
	go t.run()
	t.n = 2 // want `^write T.n: shared$`
	return t
}

func Literal() *T {
	t := &T{name: "x"} // want `^write T.name: local$`
	go t.run()
	return t
}

// Each iteration allocates anew: the write precedes the escape of its own
// object, although the previous iteration's object has escaped.
func Loop(n int) {
	for i := 0; i < n; i++ {
		t := new(T)
		t.n = i // want `^write T.n: local$`
		go t.run()
	}
}

// An object allocated once and shared in a loop has escaped by the second
// iteration.
func Reused(n int) {
	t := new(T)
	for i := 0; i < n; i++ {
		t.n = i // want `^write T.n: shared$`
		go t.run()
	}
}

// An exported function's parameter may be shared by its callers.
func Param(t *T) {
	t.n = 4 // want `^write T.n: shared$`
}

// An unexported helper's parameter is local when every caller hands it a
// fresh object before it escapes.
func setup(t *T) {
	t.n = 5 // want `^write T.n: local$`
}

func Build() *T {
	t := new(T)
	setup(t)
	go t.run()
	return t
}

// A helper closure that an unexported function returns and whose caller
// only calls it has every call known: its parameter is local when each
// call hands it an object that has gone nowhere yet.
func filler() func(t *T) {
	var name string
	return func(t *T) {
		t.name = name // want `^read name: shared$` `^write T.name: local$`
	}
}

func Fill() *T {
	fill := filler()
	t := new(T)
	fill(t)
	go t.run()
	return t
}

// Stored where any code may call it, a closure's parameter is shared.
var hook = leaked()

func leaked() func(t *T) {
	return func(t *T) {
		t.n = 7 // want `^write T.n: shared$`
	}
}

func UseHook(t *T) { hook(t) } // want `^read hook: shared$`

// A constructor of the package that returns an object it made and let go
// nowhere before gives each call its own object (mochi-mqtt's
// Inflight.Clone fills the map of a NewInflights() of its own).
type M struct {
	m   map[int]int
	tag *T
}

func newM() *M {
	return &M{m: map[int]int{}} // want `^write M.m: local$`
}

func Clone(src map[int]int) *M {
	c := newM()
	for k, v := range src {
		c.m[k] = v // want `^read M.m: local$` `^map write M.m\[\]: local$`
	}
	go c.run()
	c.m[0] = 0 // want `^read M.m: shared$` `^map write M.m\[\]: shared$`
	return c
}

func (c *M) run() {}

// One that hands its object to a goroutine or keeps it before returning
// does not.
var last *M

func newKept() *M {
	c := &M{m: map[int]int{}} // want `^write M.m: local$`
	last = c                  // want `^write last: shared$`
	return c
}

func newStarted() *M {
	c := &M{m: map[int]int{}} // want `^write M.m: local$`
	go c.run()
	return c
}

func Kept() {
	c := newKept()
	c.m[1] = 1 // want `^read M.m: shared$` `^map write M.m\[\]: shared$`
	d := newStarted()
	d.m[1] = 1 // want `^read M.m: shared$` `^map write M.m\[\]: shared$`
}

// Nor does an object the constructor fills with one it was handed: what
// that one holds (T.n) may be shared. The new object's own fields (M.tag)
// are still the call's alone until it lets the object go (goleveldb's
// newVersion(s) returning &version{s: s}); once it has, or through a
// constructor that let it go first, they are not.
func newTagged(t *T) *M {
	return &M{m: map[int]int{}, tag: t} // want `^write M.m: local$` `^write M.tag: local$`
}

func newTaggedKept(t *T) *M {
	c := &M{tag: t} // want `^write M.tag: local$`
	last = c        // want `^write last: shared$`
	return c
}

func Tagged(t *T) {
	c := newTagged(t)
	c.tag.n = 1 // want `^read M.tag: local$` `^write T.n: shared$`
	go c.run()
	c.tag = nil // want `^write M.tag: shared$`
	d := newTaggedKept(t)
	d.tag = nil // want `^write M.tag: shared$`
}

// A constructor that builds a composite literal in a variable and returns
// its address copies the literal's value into the new variable (sentry's
// NewScope: scope := Scope{tags: make(...)}; return &scope), and a slice
// made with a constant length is a slice of an array allocated for it:
// each call's object holds containers of its own, as from &L{...}.
type L struct {
	m    map[int]int
	list []int
	n    int
}

func newL() *L {
	l := L{m: map[int]int{}, list: make([]int, 0), n: 1} // want `^write L.m: local$` `^write L.list: local$` `^write L.n: local$`
	return &l
}

func CloneL(src map[int]int) *L {
	c := newL()
	for k, v := range src {
		c.m[k] = v // want `^read L.m: local$` `^map write L.m\[\]: local$`
	}
	go c.run()
	return c
}

// A literal filled with what the constructor was handed, or with a slice
// literal of pointers, holds what others may hold too.
func newLHanded(m map[int]int) *L {
	l := L{m: m, list: make([]int, 0)} // want `^write L.m: local$` `^write L.list: local$`
	return &l
}

func newLList(t *T) *L {
	l := L{m: map[int]int{}, list: []int{t.n}} // want `^write L.m: local$` `^read T.n: shared$` `^write L.list: local$`
	return &l
}

func HandedL(src map[int]int, t *T) {
	c := newLHanded(src)
	c.m[1] = 1 // want `^read L.m: local$` `^map write L.m\[\]: shared$`
	d := newLList(t)
	d.m[1] = 1 // want `^read L.m: local$` `^map write L.m\[\]: shared$`
}

func (c *L) run() {}

type W struct {
	on   bool
	n    int
	peer *W
}

var registry []*W

// enable only sets a field that holds no pointer: handing the new object
// to it lets the object go nowhere (nbio's newConn calling
// EnableWriteCompression).
func (w *W) enable(on bool) {
	w.on = on // want `^write W.on: local$`
}

// link stores a pointer into the object, which lets the object go
// nowhere (its own later writes stay local), but makes newWLinked no
// constructor: what the object holds may be shared. register hands it on.
func (w *W) link(p *W) {
	w.peer = p // want `^write W.peer: local$`
}

func (w *W) register() {
	registry = append(registry, w) // want `^read registry: shared$` `^write registry: shared$`
}

func newW() *W {
	w := &W{}
	w.enable(true)
	w.n = 1 // want `^write W.n: local$`
	return w
}

func newWLinked(p *W) *W {
	w := &W{}
	w.link(p)
	w.n = 1 // want `^write W.n: local$`
	return w
}

func newWRegistered() *W {
	w := &W{}
	w.register()
	w.n = 1 // want `^write W.n: shared$`
	return w
}

func UseW(p *W) {
	a, b, c := newW(), newWLinked(p), newWRegistered()
	a.n = 2 // want `^write W.n: local$`
	b.n = 2 // want `^write W.n: shared$`
	c.n = 2 // want `^write W.n: shared$`
}
