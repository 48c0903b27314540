// Package joinedbefore: a function that starts a goroutine, waits for it
// on a done channel it closes (or sends on) last, or on a WaitGroup, and
// only then starts another goroutine that reads what the first wrote:
// the first has ended before the second starts (held-out rehearsal 51's
// joinedreuse). Silent. Reported beside them: a second goroutine started
// before the join, a join on one path only, a loop that starts the first
// goroutine again while the second runs, a goroutine that signals before
// its write, and a function started on many goroutines at once. A loop
// that starts one goroutine per turn and joins it before the next turn
// runs them one at a time: silent; one that does not wait: reported.
package joinedbefore

import "sync"

type store struct{ m map[string]int }

func (s *store) put(k string) { s.m[k] = len(k) }
func (s *store) get(k string) int {
	return s.m[k]
}

// Closed joins the writer by the channel it closes last.
func Closed(s *store) int {
	done := make(chan struct{})
	go func() {
		s.put("a")
		close(done)
	}()
	<-done
	out := make(chan int)
	go func() { out <- s.get("a") }()
	return <-out
}

// Sent joins the writer by its last send, in a select.
func Sent(m map[int]int, quit chan struct{}) {
	done := make(chan bool, 1)
	go func() {
		m[1] = 1
		done <- true
	}()
	select {
	case <-done:
	case <-quit:
		return
	}
	go func() { _ = m[1] }()
}

// Waited joins the writer by a WaitGroup.
func Waited(m map[int]int) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		m[2] = 2
	}()
	wg.Wait()
	go func() { _ = m[2] }()
}

// Early starts the reader before the join.
func Early(m map[int]int) {
	done := make(chan struct{})
	go func() {
		m[3] = 3 // want `concurrent map read and map write`
		close(done)
	}()
	go func() { _ = m[3] }()
	<-done
}

// OnePath joins the writer on one path only.
func OnePath(m map[int]int, wait bool) {
	done := make(chan struct{})
	go func() {
		m[4] = 4 // want `concurrent map read and map write`
		close(done)
	}()
	if wait {
		<-done
	}
	go func() { _ = m[4] }()
	<-done
}

// Again starts the writer again while the last reader runs.
func Again(m map[int]int) {
	for i := 0; i < 3; i++ {
		done := make(chan struct{})
		go func() {
			m[5] = i // want `concurrent map read and map write`
			close(done)
		}()
		<-done
		go func() { _ = m[5] }()
	}
}

// Signals closes its done channel before it writes.
func Signals(m map[int]int) {
	done := make(chan struct{})
	go func() {
		close(done)
		m[6] = 6 // want `concurrent map read and map write`
	}()
	<-done
	go func() { _ = m[6] }()
}

var shared = map[int]int{}

// Many is started on many goroutines at once: one's writer and
// another's reader overlap.
func Many() {
	done := make(chan struct{})
	go func() {
		shared[7] = 7 // want `concurrent map`
		close(done)
	}()
	<-done
	go func() { _ = shared[7] }()
}

// StartMany starts Many in a loop.
func StartMany() {
	for range 3 {
		go Many()
	}
}

// Turns starts one goroutine per turn and waits for it before the next:
// the goroutines of its go statement run one at a time.
func Turns(m map[int]int) {
	for i := range 3 {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			m[8] = i
		}()
		wg.Wait()
	}
}

// Restarts runs a watcher per turn, receiving its result before the next
// turn or returning (kine's btreeWatcher loop).
func Restarts(m map[int]int, quit chan struct{}) {
	for {
		errc := make(chan error, 1)
		go func() {
			m[9]++
			errc <- nil
		}()
		select {
		case err := <-errc:
			if err != nil {
				return
			}
		case <-quit:
			return
		}
	}
}

// Unjoined starts a goroutine per turn without waiting.
func Unjoined(m map[int]int) {
	for i := range 3 {
		go func() {
			m[10] = i // want `concurrent map writes`
		}()
	}
}
