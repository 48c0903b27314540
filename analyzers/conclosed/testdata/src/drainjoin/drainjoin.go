// Package drainjoin is kad-dht's lookup: a helper runs the function it is
// handed on one goroutine per peer, each sending once on a channel the
// helper made, then receives one result per turn, counting them, may stop
// early, and drains the rest (`for i := completed; i < len(peers); i++ {
// <-doneCh }`) before it returns; its caller then closes the channel the
// function sends on. len(peers) receives of len(peers) goroutines' sends:
// every send on valCh comes first. Silent (Lookup, and Ranged, whose one
// loop receives len(peers) times). Reported: a drain one short (Short), a
// count bumped before the receive (Early), a second sender on the done
// channel (Extra), two goroutines per peer (Twice), a drain that may stop
// (Stops), a count against another slice (Other).
package drainjoin

func lookup(peers []int, fn func(int), stop func() bool) {
	doneCh := make(chan struct{}, len(peers))
	for _, p := range peers {
		go func() { fn(p); doneCh <- struct{}{} }()
	}
	completed := 0
	for range peers {
		<-doneCh
		completed++
		if stop() {
			break
		}
	}
	for i := completed; i < len(peers); i++ {
		<-doneCh
	}
}

func Lookup(peers []int, stop func() bool) <-chan int {
	valCh := make(chan int, len(peers))
	go func() {
		defer close(valCh)
		lookup(peers, func(p int) { valCh <- p }, stop)
	}()
	return valCh
}

func ranged(peers []int, fn func(int)) {
	doneCh := make(chan struct{}, len(peers))
	for i := 0; i < len(peers); i++ {
		p := peers[i]
		go func() { fn(p); doneCh <- struct{}{} }()
	}
	for range peers {
		<-doneCh
	}
}

func Ranged(peers []int) <-chan int {
	valCh := make(chan int, len(peers))
	go func() {
		defer close(valCh)
		ranged(peers, func(p int) { valCh <- p })
	}()
	return valCh
}

func short(peers []int, fn func(int)) {
	doneCh := make(chan struct{}, len(peers))
	for _, p := range peers {
		go func() { fn(p); doneCh <- struct{}{} }()
	}
	for i := 1; i < len(peers); i++ {
		<-doneCh
	}
}

func Short(peers []int) <-chan int {
	valCh := make(chan int, len(peers))
	go func() {
		defer close(valCh)
		short(peers, func(p int) { valCh <- p }) // want `send on closed channel: valCh may be closed concurrently`
	}()
	return valCh
}

func early(peers []int, fn func(int), stop func() bool) {
	doneCh := make(chan struct{}, len(peers))
	for _, p := range peers {
		go func() { fn(p); doneCh <- struct{}{} }()
	}
	completed := 0
	for range peers {
		completed++
		<-doneCh
		if stop() {
			break
		}
	}
	for i := completed; i < len(peers); i++ {
		<-doneCh
	}
}

func Early(peers []int, stop func() bool) <-chan int {
	valCh := make(chan int, len(peers))
	go func() {
		defer close(valCh)
		early(peers, func(p int) { valCh <- p }, stop) // want `send on closed channel: valCh may be closed concurrently`
	}()
	return valCh
}

func extra(peers []int, fn func(int)) {
	doneCh := make(chan struct{}, len(peers)+1)
	go func() { doneCh <- struct{}{} }()
	for _, p := range peers {
		go func() { fn(p); doneCh <- struct{}{} }()
	}
	for range peers {
		<-doneCh
	}
}

func Extra(peers []int) <-chan int {
	valCh := make(chan int, len(peers))
	go func() {
		defer close(valCh)
		extra(peers, func(p int) { valCh <- p }) // want `send on closed channel: valCh may be closed concurrently`
	}()
	return valCh
}

func twice(peers []int, fn func(int)) {
	doneCh := make(chan struct{}, 2*len(peers))
	for _, p := range peers {
		for range 2 {
			go func() { fn(p); doneCh <- struct{}{} }()
		}
	}
	for range peers {
		<-doneCh
	}
}

func Twice(peers []int) <-chan int {
	valCh := make(chan int, 2*len(peers))
	go func() {
		defer close(valCh)
		twice(peers, func(p int) { valCh <- p }) // want `send on closed channel: valCh may be closed concurrently`
	}()
	return valCh
}

func stops(peers []int, fn func(int), stop func() bool) {
	doneCh := make(chan struct{}, len(peers))
	for _, p := range peers {
		go func() { fn(p); doneCh <- struct{}{} }()
	}
	for range peers {
		<-doneCh
		if stop() {
			break
		}
	}
}

func Stops(peers []int, stop func() bool) <-chan int {
	valCh := make(chan int, len(peers))
	go func() {
		defer close(valCh)
		stops(peers, func(p int) { valCh <- p }, stop) // want `send on closed channel: valCh may be closed concurrently`
	}()
	return valCh
}

func other(peers, others []int, fn func(int)) {
	doneCh := make(chan struct{}, len(peers))
	for _, p := range peers {
		go func() { fn(p); doneCh <- struct{}{} }()
	}
	for range others {
		<-doneCh
	}
}

func Other(peers, others []int) <-chan int {
	valCh := make(chan int, len(peers))
	go func() {
		defer close(valCh)
		other(peers, others, func(p int) { valCh <- p }) // want `send on closed channel: valCh may be closed concurrently`
	}()
	return valCh
}
