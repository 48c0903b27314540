package loopchan

// Twice calls f twice: two goroutines close one turn's channel.
func Twice(f func() bool) bool { return f() && f() }

// Each calls f in a loop.
func Each(n int, f func() bool) {
	for range n {
		f()
	}
}

// Pass hands f on, to code that may call it any number of times.
func Pass(f func() bool) bool { return Twice(f) }

func CalledTwice() {
	for range 8 {
		closed := make(chan struct{})
		Twice(func() bool {
			go func() { close(closed) }() // want `close of closed channel: closed may also be closed by func literal in CalledTwice`
			return true
		})
		<-closed
	}
}

func CalledInLoop() {
	for range 8 {
		closed := make(chan struct{})
		Each(2, func() bool {
			go func() { close(closed) }() // want `close of closed channel: closed may also be closed by func literal in CalledInLoop`
			return true
		})
		<-closed
	}
}

func HandedOn() {
	for range 8 {
		closed := make(chan struct{})
		Pass(func() bool {
			go func() { close(closed) }() // want `close of closed channel: closed may also be closed by func literal in HandedOn`
			return true
		})
		<-closed
	}
}

// MadeOutside makes one channel for every turn's closure.
func MadeOutside() {
	closed := make(chan struct{})
	for range 8 {
		Run(func() bool {
			go func() { close(closed) }() // want `close of closed channel: closed may also be closed by func literal in MadeOutside`
			return true
		})
	}
	<-closed
}

// StartsTwo starts its goroutines in a loop of the closure.
func StartsTwo() {
	for range 8 {
		closed := make(chan struct{})
		Run(func() bool {
			for range 2 {
				go func() { close(closed) }() // want `close of closed channel: closed may also be closed by func literal in StartsTwo`
			}
			return true
		})
		<-closed
	}
}
