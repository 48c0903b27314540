// Package spawnerdone: helpers that start a function on a goroutine of
// their own and return a channel that goroutine closes when it is done,
// as precog's shim tests do (spawn, racyAppends). Each call makes its
// channel and starts one goroutine that closes it; the goroutine is
// rooted at every call of the helper (and at its go statement, for the
// callers that hand it a function the analysis cannot name), so two of
// them run at once, but they close two channels: silent. Near misses,
// reported: a helper whose go statement runs in a loop (two goroutines
// of one call close one channel), and one whose own goroutine sends on
// the channel its goroutine closes.
package spawnerdone

// spawn runs f on a new goroutine once start is closed.
func spawn(start <-chan struct{}, f func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-start
		f()
	}()
	return done
}

// appends runs spawn three times under a goroutine of its own, which
// closes the channel appends made when they are all done.
func appends(load func()) []int {
	var list []int
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := make(chan struct{})
		var dones []<-chan struct{}
		for i := range 3 {
			dones = append(dones, spawn(start, func() { _ = i }))
		}
		if load != nil {
			load()
		}
		close(start)
		for _, d := range dones {
			<-d
		}
	}()
	<-done
	return list
}

// Use calls the helpers from several places, in loops and on
// goroutines.
func Use(f func()) {
	start := make(chan struct{})
	close(start)
	for range 3 {
		go func() { <-spawn(start, func() {}) }()
		<-spawn(start, f)
	}
	for range 2 {
		go appends(nil)
		appends(func() {})
	}
}

// spawnAll starts f n times, each goroutine closing the one channel.
func spawnAll(n int, f func()) <-chan struct{} {
	done := make(chan struct{})
	for range n {
		go func() {
			defer close(done) // want `close of closed channel: done may also be closed by func literal in spawnAll`
			f()
		}()
	}
	return done
}

// spawnSend sends on the channel its goroutine closes.
func spawnSend(f func()) <-chan struct{} {
	done := make(chan struct{}, 1)
	go func() {
		defer close(done)
		f()
	}()
	done <- struct{}{} // want `send on closed channel: done may be closed concurrently by func literal in spawnSend`
	return done
}

// UseNear calls the near misses.
func UseNear() {
	for range 2 {
		go spawnAll(2, func() {})
		go spawnSend(func() {})
	}
}
