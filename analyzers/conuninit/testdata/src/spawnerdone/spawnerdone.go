// Package spawnerdone: a helper that starts a function on a goroutine
// of its own and returns a channel that goroutine closes when the
// function has returned, as precog's shim tests do (spawn, runProcInfo).
// A result the function sets is read after a receive from the channel
// its own call returned: silent, although every call of the helper
// starts such a goroutine and each closes a channel. Near misses,
// reported: a read after a receive from another call's channel, and a
// helper that closes the channel before it calls the function.
package spawnerdone

// spawn runs f on a new goroutine once start is closed.
func spawn(start <-chan struct{}, f func()) (int, <-chan struct{}) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-start
		f()
	}()
	return 1, done
}

// early closes the channel before it runs f.
func early(f func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		close(done)
		f()
	}()
	return done
}

// Run sets a result on one goroutine and reads it after its channel.
func Run(force func(int)) bool {
	result := make(chan bool)
	go func() {
		start := make(chan struct{})
		_, other := spawn(start, func() {})
		var got bool
		id, d := spawn(start, func() {
			got = true
		})
		if force != nil {
			force(id)
		}
		close(start)
		<-other
		<-d
		result <- got
	}()
	return <-result
}

// Other reads after the other call's channel.
func Other(force func(int)) bool {
	result := make(chan bool)
	go func() {
		start := make(chan struct{})
		var got bool
		_, d := spawn(start, func() {
			got = true
		})
		_, other := spawn(start, func() {})
		if force != nil {
			force(0)
		}
		close(start)
		<-other
		result <- got // want `got may be read before it is set`
		<-d
	}()
	return <-result
}

// Early reads after a channel closed before the set.
func Early() bool {
	var got bool
	d := early(func() { got = true })
	<-d
	return got // want `got may be read before it is set`
}

// Loop runs Run again and again, on goroutines of their own, as a test
// forcing each order does: Run's goroutines, and the helper's, are many.
func Loop() {
	for range 3 {
		go Run(func(int) {})
		Run(func(int) {})
	}
}
