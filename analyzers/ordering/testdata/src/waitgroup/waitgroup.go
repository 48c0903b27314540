// Package waitgroup: a goroutine's work happens before a Wait on a
// sync.WaitGroup that the goroutine calls Done on afterwards, deferred or
// not; work after the Done does not.
package waitgroup

import "sync"

func a(string) {}
func b(string) {}

func Deferred() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a("deferred")
	}()
	wg.Wait()
	b("deferred") // want `^deferred: a before b by wait$`
}

func Plain() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		a("plain")
		wg.Done()
		a("after done")
	}()
	wg.Wait()
	b("plain")      // want `^plain: a before b by wait$`
	b("after done") // want `^after done: unordered$`
}

func Workers(n int) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a("workers")
		}()
	}
	wg.Wait()
	b("workers") // want `^workers: a before b by wait$`
}

func OtherWaiter() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a("other waiter")
	}()
	go func() {
		wg.Wait()
		b("other waiter") // want `^other waiter: a before b by wait$`
	}()
}

func BeforeWait() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a("before wait")
	}()
	b("before wait") // want `^before wait: unordered$`
	wg.Wait()
}
