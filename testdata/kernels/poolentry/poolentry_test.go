package poolentry

import (
	"sync"
	"testing"
	"time"
)

// logTwice runs two loggers: the first logs n entries at once, the second
// logs one 5 ms later and gets one of the first's entries from the pool
// (the first's Puts leave them in its P's pool, where a Get on any P finds
// one). Each logger has cores of its own. write is the way an entry is
// written and released.
func logTwice(t *testing.T, write func(*Entry)) {
	a, b, c := &Core{Name: "a"}, &Core{Name: "b"}, &Core{Name: "c"}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		var ces []*Entry
		for range 4 {
			ce := Get("first")
			ce.AddCore(a)
			ce.AddCore(b)
			ces = append(ces, ce)
		}
		for _, ce := range ces {
			write(ce)
		}
	}()
	go func() {
		defer wg.Done()
		time.Sleep(5 * time.Millisecond)
		ce := Get("second")
		ce.AddCore(c)
		write(ce)
	}()
	wg.Wait()
	if a.Written != 4 || b.Written != 4 || c.Written != 1 {
		t.Errorf("written %d, %d and %d, want 4, 4 and 1", a.Written, b.Written, c.Written)
	}
}

func TestWriteAndRelease(t *testing.T) { logTwice(t, (*Entry).WriteAndRelease) }
