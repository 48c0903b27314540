// Package bubbles: testing/synctest.Wait returns once every other
// goroutine of the bubble is durably blocked or has ended, so what a
// goroutine started before it does before it can first block happens
// before the code after the Wait.
package bubbles

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func a(string) {}
func b(string) {}

// The example of testing/synctest's documentation: "Wait will block until
// the goroutine above has finished".
func Wait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		go func() {
			a("wait")
		}()
		synctest.Wait()
		b("wait") // want `^wait: a before b by synctest.Wait$`
	})
}

// A mutex does not block durably: Wait waits for its holder.
func Locked(t *testing.T) {
	var mu sync.Mutex
	synctest.Test(t, func(t *testing.T) {
		go func() {
			mu.Lock()
			a("locked")
			mu.Unlock()
		}()
		synctest.Wait()
		b("locked") // want `^locked: a before b by synctest.Wait$`
	})
}

// The write is in a function the goroutine calls, after a call of this
// package that cannot block, and a t.Log.
func Callee(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		go func() {
			n := count(3)
			t.Log(n)
			work()
		}()
		synctest.Wait()
		unblock()
		synctest.Wait()
		b("callee") // want `^callee: a before b by synctest.Wait$`
	})
}

func work()           { a("callee") }
func count(n int) int { return n * 2 }
func unblock()        {}

// Negative: the goroutine may be durably blocked in the receive when Wait
// returns; the write then comes after the read.
func BlocksFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan int)
		go func() {
			<-ch
			a("blocks first")
		}()
		synctest.Wait()
		b("blocks first") // want `^blocks first: b before a by channel$`
		ch <- 1
	})
}

// Negative: it may block again after a first write, before the next one
// (a loop around a channel receive).
func BlocksAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan int)
		go func() {
			for range 2 {
				a("blocks again")
				<-ch
			}
		}()
		synctest.Wait()
		b("blocks again") // want `^blocks again: unordered$`
		ch <- 1
	})
}

// Negative: a call of another package's function may block durably
// (time.Sleep does), and so may one of this package that receives.
func Sleeps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan int, 1)
		go func() {
			time.Sleep(time.Second)
			a("sleeps")
		}()
		go func() {
			get(ch)
			a("gets")
		}()
		synctest.Wait()
		b("sleeps") // want `^sleeps: unordered$`
		b("gets")   //   want `^gets: b before a by channel$`
		ch <- 1
	})
}

func get(ch chan int) int { return <-ch }

// Negative: no Wait, or one made before the goroutine starts.
func NoWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		go func() {
			a("no wait")
		}()
		b("no wait") // want `^no wait: unordered$`
	})
	synctest.Test(t, func(t *testing.T) {
		synctest.Wait()
		go func() {
			a("started after")
		}()
		b("started after") // want `^started after: unordered$`
	})
}

// Negative: the goroutines of a later iteration start after the Wait.
func Loop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for range 2 {
			go func() {
				a("loop")
			}()
			synctest.Wait()
			b("loop") // want `^loop: unordered$`
		}
	})
}

// synctest.Test returns once every goroutine of its bubble has ended,
// those its goroutines start too, whatever blocks them first.
func AfterTest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		go func() {
			time.Sleep(time.Second)
			a("after test")
			go func() {
				a("nested")
			}()
		}()
	})
	b("after test") // want `^after test: a before b by wait$`
	b("nested")     // want `^nested: a before b by wait$`
}

// Negative: a goroutine that a subtest starts may outlive t.Run.
func AfterRun(t *testing.T) {
	t.Run("run", func(t *testing.T) {
		go func() {
			a("after run")
		}()
	})
	b("after run") // want `^after run: unordered$`
}

// Negative: the bubble's function is handed to t.Run too, and a Test call
// in a loop makes a bubble after b.
func NotOnlyTest(t *testing.T) {
	f := func(t *testing.T) {
		go func() {
			a("not only test")
		}()
	}
	synctest.Test(t, f)
	t.Run("run", f)
	b("not only test") // want `^not only test: unordered$`
	for range 2 {
		synctest.Test(t, func(t *testing.T) {
			go func() {
				a("test loop")
			}()
		})
		b("test loop") // want `^test loop: unordered$`
	}
}
