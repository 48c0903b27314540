// Package once: the function given to sync.Once.Do happens before code
// that follows any Do on the same Once, on any goroutine.
package once

import "sync"

func a(string) {}
func b(string) {}

type table struct {
	once sync.Once
}

func (t *table) init() {
	a("once")
}

func (t *table) lookup() {
	t.once.Do(t.init)
	b("once") // want `^once: a before b by sync.Once$`
}

func (t *table) Start() {
	go t.lookup()
	go t.lookup()
}

var other sync.Once

func (t *table) Other() {
	go t.lookup()
	go func() {
		other.Do(func() {})
		b("other once") // want `^other once: unordered$`
	}()
	a("other once")
}
