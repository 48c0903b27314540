// Package condfield: a lock taken under `if !o.NoShare` and an access
// under a later `if !o.NoShare`, each test loading the field afresh, with
// nothing between that may write it (riverqueue/river's riverdbtest
// testTxSchemaForDatabaseAndMigrationLines): the paths through both tests
// take the same side of each, so the access holds the lock. Where the
// field may change between the tests, or the tests are of different
// fields, or the lock is taken elsewhere or let go, it does not.
package condfield

import (
	"encoding/json"
	"sync"
)

func mark() {}

var mu sync.RWMutex

type Opts struct {
	NoShare bool
	Helper  bool
	Other   bool
}

func compute(s string, n int) string { return s + string(rune('0'+n)) }

func Get(k string, o *Opts) string {
	if o == nil {
		o = &Opts{}
	}
	if !o.NoShare {
		mu.Lock()
		defer mu.Unlock()
	}
	n := 2
	if o.Helper {
		n += 2
	}
	s := compute(k, n)
	if !o.NoShare {
		mark() // want `^held: mu\(w\)$`
	}
	mark() // want `^held: none$`
	return s
}

// A copy filled in before it is handed on, and composite literals, make
// their objects: they change no field some code already tests.
func Helper(k string, o *Opts) string {
	var c Opts
	if o != nil {
		c = *o
	}
	c.Helper = true
	return Get(k, &c)
}

func Shared(k string) string { return Get(k, &Opts{NoShare: false}) }

// A field held by value in another: s.cfg.NoShare, s the same value.
type Server struct {
	cfg Opts
	m   map[string]int
}

func (s *Server) Put(k string) {
	if !s.cfg.NoShare {
		mu.Lock()
		defer mu.Unlock()
	}
	compute(k, 1)
	if !s.cfg.NoShare {
		mark() // want `^held: mu\(w\)$`
	}
}

// Near misses.

// The field is stored between the tests.
type Stored struct{ On bool }

func StoredBetween(o *Stored) {
	if !o.On {
		mu.Lock()
		defer mu.Unlock()
	}
	o.On = len(compute("", 1)) > 3
	if !o.On {
		mark() // want `^held: none$`
	}
}

// A field the package writes after making its object (Flags.On, set
// by Toggle): a call between may set it.
type Flags struct{ On bool }

func (f *Flags) Toggle() { f.On = !f.On }

func CallBetween(f *Flags, g func()) {
	if f.On {
		mu.Lock()
		defer mu.Unlock()
	}
	g()
	if f.On {
		mark() // want `^held: none$`
	}
}

// So may another goroutine, seen after a receive.
func RecvBetween(f *Flags, ch chan int) {
	if f.On {
		mu.Lock()
		defer mu.Unlock()
	}
	<-ch
	if f.On {
		mark() // want `^held: none$`
	}
}

// With nothing between, such a field's two tests are one.
func NothingBetween(f *Flags, n int) {
	if f.On {
		mu.Lock()
		defer mu.Unlock()
	}
	n++
	if f.On {
		mark() // want `^held: mu\(w\)$`
	}
}

// A struct handed to code of another package whole (json.Unmarshal may
// set any of its fields): a call between may have set it.
type Decoded struct{ Lock bool }

func Decode(b []byte) *Decoded {
	var d Decoded
	json.Unmarshal(b, &d)
	return &d
}

func UnseenWriter(d *Decoded, g func()) {
	if d.Lock {
		mu.Lock()
		defer mu.Unlock()
	}
	g()
	if d.Lock {
		mark() // want `^held: none$`
	}
}

// A field whose address is handed on: a call between may write it.
type Escaped struct{ On bool }

func set(p *bool) { *p = true }

func Setter(e *Escaped) func() { return func() { set(&e.On) } }

func EscapedField(e *Escaped, g func()) {
	if e.On {
		mu.Lock()
		defer mu.Unlock()
	}
	g()
	if e.On {
		mark() // want `^held: none$`
	}
}

// The first test's value was loaded before a store: the field's value
// at the test is another.
func LoadThenStore(o *Stored) {
	t := o.On
	o.On = false
	if t {
		mu.Lock()
		defer mu.Unlock()
	}
	if o.On {
		mark() // want `^held: none$`
	}
}

// Two fields.
func Different(o *Opts) {
	if o.Helper {
		mu.Lock()
		defer mu.Unlock()
	}
	if o.Other {
		mark() // want `^held: none$`
	}
}

// The lock is taken on the other branch.
func OtherBranch(o *Opts) {
	if o.Helper {
		compute("", 0)
	} else {
		mu.Lock()
		defer mu.Unlock()
	}
	if o.Helper {
		mark() // want `^held: none$`
	}
}

// The lock is let go before the second test.
func UnlockedBefore(o *Opts) {
	if o.Helper {
		mu.Lock()
		compute("", 0)
		mu.Unlock()
	}
	if o.Helper {
		mark() // want `^held: none$`
	}
}

// One object per turn: each turn loads its own, so its first test
// knows nothing of what the last turn's second found (a turn whose
// object's Other is false lets the lock go).
func Loop(list []*Opts) {
	mu.Lock()
	for _, o := range list {
		if o.Other {
			mark() // want `^held: none$`
		}
		if !o.Other {
			mu.Unlock()
		}
	}
}

// Schema holds values of its own type in a map (go-openapi's Schema): the
// walk of the types a call's argument reaches ends (it once recursed until
// the stack overflowed).
type Schema struct{ Props map[string]Schema }

func Show(sc Schema) ([]byte, error) { return json.Marshal(sc) }
