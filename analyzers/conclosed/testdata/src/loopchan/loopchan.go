package loopchan

// Run calls initialize once.
func Run(initialize func() bool) bool { return initialize() }

// Either calls f on one of two paths: once either way.
func Either(early bool, f func() bool) bool {
	if early {
		return f()
	}
	return !f()
}

// Later defers its one call of f.
func Later(f func() bool) {
	defer f()
}

// Each turn makes its own channel and a closure that starts one goroutine
// to close it, called once by Run (or by Either, on one of its paths): one
// close per channel.
func Turns() {
	for range 8 {
		closed := make(chan struct{})
		Run(func() bool {
			go func() { close(closed) }()
			return true
		})
		<-closed
	}
	for i := range 8 {
		closed := make(chan struct{})
		Either(i%2 == 0, func() bool {
			go func() { close(closed) }()
			return true
		})
		<-closed
	}
}

// The closure called once in its turn, directly or deferred by a callee.
func Direct() {
	for range 8 {
		closed := make(chan struct{})
		start := func() bool {
			go func() { close(closed) }()
			return true
		}
		start()
		<-closed
	}
	for range 8 {
		closed := make(chan struct{})
		Later(func() bool {
			go func() { close(closed) }()
			return true
		})
		<-closed
	}
}
