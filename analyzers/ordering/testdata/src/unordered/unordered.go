// Package unordered: code that no synchronization orders is reported in
// neither direction; mutexes order nothing; the answer has a direction.
package unordered

import "sync"

func a(string) {}
func b(string) {}

var mu sync.Mutex

func Siblings() {
	go func() {
		a("siblings")
	}()
	go func() {
		b("siblings") // want `^siblings: unordered$`
	}()
}

func Locked() {
	go func() {
		mu.Lock()
		a("locked")
		mu.Unlock()
	}()
	mu.Lock()
	b("locked") // want `^locked: unordered$`
	mu.Unlock()
}

func Reverse() {
	b("reverse") // want `^reverse: b before a by goroutine start$`
	go func() {
		a("reverse")
	}()
}
