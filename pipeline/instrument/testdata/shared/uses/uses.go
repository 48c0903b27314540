// Package uses marks, on each line with a read of a shared field, the
// trace.Site.Uses the instrumenter must give it (TestUses).
package uses

import (
	"io"
	"os"
	"sync"
)

type node struct{ val int }

type state struct {
	mu   sync.Mutex
	p    *node
	mup  *sync.Mutex
	buf  []byte
	n    int
	stop bool
	f    func()
	last int
	file *os.File
}

func (s *state) reader() int {
	x := 0
	if s.p != nil { // uses:"branch ptr"
		x += s.p.val // uses:"deref ptr"
	}
	if q := s.p; q != nil { // uses:"ptr"
		x += q.val
	}
	s.mup.Lock()           // uses:"deref ptr"
	x += int(s.buf[s.n+1]) // uses:"index" uses:"index scalar"
	for !s.stop {          // uses:"loop-exit branch scalar"
	}
	if s.n > 3 && !s.stop { // uses:"branch scalar" uses:"branch scalar"
		x++
	}
	for _, b := range s.buf { // uses:""
		x += int(b)
	}
	for i := 0; i < len(s.buf); i++ { // uses:"loop-exit branch"
		x += int(s.buf[i]) // uses:"index"
	}
	if len(s.buf) == 0 { // uses:"branch"
		x--
	}
	x += len(s.buf) // uses:""
	x += s.n        // uses:"scalar"
	x += s.last     // uses:"scalar"
	s.f()           // uses:"deref ptr"
	s.mup.Unlock()  // uses:"deref ptr"
	// *os.File's methods but Name take a nil file (os.ErrInvalid).
	s.file.Seek(0, io.SeekCurrent) // uses:"ptr"
	_ = s.file.Name()              // uses:"deref ptr"
	return x
}

func (s *state) writer() {
	s.p = nil
	s.mup = nil
	s.buf = nil
	s.n = 2
	s.last = s.n     // writes:"copy"
	s.last = s.n + 1 // writes:""
	s.stop = true
	s.f = nil
	s.file = nil
}

// Run runs reader and writer at once.
func Run() {
	s := &state{p: &node{}, mup: new(sync.Mutex), buf: make([]byte, 4), f: func() {}}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.reader() }()
	go func() { defer wg.Done(); s.writer() }()
	wg.Wait()
}
