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
