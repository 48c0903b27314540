// Package capturedlater: an object stored to a variable that a closure
// captures can reach another goroutine only once the closure is made, so
// the writes before it are local (memberlist's newSuspicion fills the map
// of the suspicion it made and then makes the timer's closure). Near
// misses: a closure made before the write, a closure made by an earlier
// loop turn, and the variable's address taken.
package capturedlater

import "time"

type T struct{ n int }

func (t *T) use() {}

func New() *T {
	s := &T{}               // want `^write s: local$`
	s.n = 1                 // want `^read s: local$` `^write T.n: local$`
	f := func() { s.use() } // want `^read s: shared$`
	s.n = 2                 // want `^read s: shared$` `^write T.n: shared$`
	time.AfterFunc(time.Second, f)
	return s // want `^read s: shared$`
}

func Early() *T {
	s := &T{}               // want `^write s: local$`
	f := func() { s.use() } // want `^read s: shared$`
	time.AfterFunc(time.Second, f)
	s.n = 1  // want `^read s: shared$` `^write T.n: shared$`
	return s // want `^read s: shared$`
}

// The closure made by the first turn reads the variable, which holds the
// object the next turn makes.
func Loop(k int) {
	var s *T
	for i := range k {
		s = &T{} // want `^write s: shared$`
		s.n = i  // want `^read s: shared$` `^write T.n: shared$`
		if i == 0 {
			go func() { s.use() }() // want `^read s: shared$`
		}
	}
}

func Addr() *T {
	s := &T{} // want `^write s: local$`
	keep(&s)
	s.n = 1                 // want `^read s: shared$` `^write T.n: shared$`
	f := func() { s.use() } // want `^read s: shared$`
	time.AfterFunc(time.Second, f)
	return s // want `^read s: shared$`
}

var kept **T

func keep(p **T) { kept = p } // want `^write kept: shared$`
