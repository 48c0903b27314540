package waitgroup

import "sync"

// A joiner: a third goroutine waits the WaitGroup and closes the channel
// the spawner returns (etcd's waitCancelSubstreams); the caller's receive
// from it follows every goroutine the WaitGroup counted.
func Joiner(n int) {
	donec := joined(n)
	<-donec
	b("joiner") // want `^joiner: ordered by wait$`
}

func joined(n int) <-chan struct{} {
	var wg sync.WaitGroup
	wg.Add(n)
	donec := make(chan struct{})
	for range n {
		go func() {
			defer wg.Done()
			a("joiner")
		}()
	}
	go func() {
		defer close(donec)
		wg.Wait()
	}()
	return donec
}

// Negative: the closer does not wait the WaitGroup.
func JoinerNoWait(n int) {
	donec := notWaited(n)
	<-donec
	b("joiner no wait") // want `^joiner no wait: unordered$`
}

func notWaited(n int) <-chan struct{} {
	var wg sync.WaitGroup
	wg.Add(n)
	donec := make(chan struct{})
	for range n {
		go func() {
			defer wg.Done()
			a("joiner no wait")
		}()
	}
	go func() {
		close(donec)
		wg.Wait()
	}()
	return donec
}

// Negative: a goroutine started after the joiner (its Add made after the
// Wait may have returned) is not joined.
func JoinerLate(n int) {
	donec := late(n)
	<-donec
	b("joiner late") // want `^joiner late: unordered$`
}

func late(n int) <-chan struct{} {
	var wg sync.WaitGroup
	donec := make(chan struct{})
	go func() {
		defer close(donec)
		wg.Wait()
	}()
	wg.Add(n)
	for range n {
		go func() {
			defer wg.Done()
			a("joiner late")
		}()
	}
	return donec
}

// Negative: the first call's channel may never be received from (the
// loop goes on past it), so its goroutines may still run at b.
func JoinerSkipped(n int, skip func() bool) {
	for range n {
		donec := skipped(n)
		if skip() {
			continue
		}
		<-donec
		b("joiner skipped") // want `^joiner skipped: unordered$`
	}
}

func skipped(n int) <-chan struct{} {
	var wg sync.WaitGroup
	wg.Add(n)
	donec := make(chan struct{})
	for range n {
		go func() {
			defer wg.Done()
			a("joiner skipped")
		}()
	}
	go func() {
		defer close(donec)
		wg.Wait()
	}()
	return donec
}
