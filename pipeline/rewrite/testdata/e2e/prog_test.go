package prog

import (
	"os"
	"sync"
	"sync/atomic"
	"testing"
)

type account struct {
	mu      sync.Mutex
	balance int
	owner   *string
}

var (
	hits  atomic.Int64
	total int64
	seen  = map[string]int{}
	span  struct{ lo, hi int }
)

func (a *account) deposit(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.balance += n
}

func produce(ch chan<- int, n int, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < n; i++ {
		ch <- i
	}
}

func TestProgram(t *testing.T) {
	a := &account{}
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.deposit(5)
			hits.Add(1)
			atomic.AddInt64(&total, 2)
		}()
	}
	wg.Wait()
	ch := make(chan int, 4)
	wg.Add(1)
	go produce(ch, 3, &wg)
	wg.Wait()
	wg.Add(1)
	go func(n int) { // its argument is read before the fork
		defer wg.Done()
		a.balance = n
	}(a.balance)
	wg.Wait()
	close(ch)
	sum := 0
	for v := range ch {
		sum += v
	}
	_, ok := <-ch
	if ok || sum != 3 {
		t.Fatalf("sum %d ok %v", sum, ok)
	}
	done := make(chan struct{})
	close(done)
	select {
	case _, more := <-done:
		if more {
			t.Fatal("more")
		}
	}
	pool := sync.Pool{New: func() any { return new(account) }}
	pool.Put(pool.Get().(*account))
	name := "x"
	a.owner = &name
	a.owner = nil
	seen["k"] = 1
	for k := range seen {
		_ = seen[k]
	}
	t.Run("sub", func(t *testing.T) {
		a.balance = 7
	})
	if a.balance != 7 || hits.Load() != 2 || atomic.LoadInt64(&total) != 4 {
		t.Fatal("wrong")
	}
	// Two writes at once in an init and a post statement.
	for span.lo, span.hi = 0, 10; span.lo < span.hi; span.lo, span.hi = span.lo+1, span.hi-1 {
	}
	if span.lo != 5 || span.hi != 5 {
		t.Fatalf("span %+v, want 5 and 5", span)
	}
}

func crash(p *account) int {
	return p.balance // nil p when PRECOG_E2E_PANIC is set
}

func crashIn(done chan<- bool, p *account) {
	_ = crash(p)
	done <- true
}

func TestPanic(t *testing.T) {
	mode := os.Getenv("PRECOG_E2E_PANIC")
	if mode == "" {
		t.Skip("set PRECOG_E2E_PANIC")
	}
	// The panic ends the process while this goroutine waits for done.
	var p *account
	done := make(chan bool)
	switch mode {
	case "literal":
		go func() {
			_ = crash(p)
			done <- true
		}()
	case "literal-arg":
		go func(q *account) {
			_ = crash(q)
			done <- true
		}(p)
	default:
		go crashIn(
			done,
			p,
		)
	}
	<-done
}
