package spawnlib

import "sync"

// Joins that wait for something else than the goroutine running f
// (review33's j9, j12, j3c, j2), and the joins they are mistaken for
// (RunEachInTurn in tasks.go receives in the go statement's loop).

// FirstOf returns once the first of n goroutines running f is done: the
// others still run f after it returns.
func FirstOf(n int, f func()) { // want FirstOf:`^spawns\(1\)$` FirstOf:`^starts goroutines$`
	done := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		go func() {
			f()
			done <- struct{}{}
		}()
	}
	<-done
}

// StartWarm waits for its warm-up workers, not for f's goroutine.
func StartWarm(f func()) { // want StartWarm:`^spawns\(0\)$` StartWarm:`^starts goroutines$`
	var ready sync.WaitGroup
	defer ready.Wait()
	for i := 0; i < 2; i++ {
		ready.Add(1)
		go func() { defer ready.Done() }()
	}
	go func() { f() }()
}

// StartCounted waits for f's goroutine, done on the same WaitGroup.
func StartCounted(f func()) { // want StartCounted:`spawns\(0\) joins` StartCounted:`^starts goroutines$`
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(1)
	go func() {
		defer wg.Done()
		f()
	}()
}

// SignalTwice signals when it starts and when f is done: the one
// receive takes the first.
func SignalTwice(f func()) { // want SignalTwice:`^spawns\(0\)$` SignalTwice:`^starts goroutines$`
	ready := make(chan struct{}, 2)
	go func() {
		ready <- struct{}{}
		f()
		ready <- struct{}{}
	}()
	<-ready
}

// RunSomePaths waits for its Task on one path only.
func RunSomePaths(quick bool, f func()) { // want RunSomePaths:`^spawns\(1\)$` RunSomePaths:`^starts goroutines through a call$`
	var group sync.WaitGroup
	group.Go(func() { f() })
	if quick {
		return
	}
	group.Wait()
}

// RunAllPaths waits for it on every path.
func RunAllPaths(f func()) { // want RunAllPaths:`spawns\(0\) joins` RunAllPaths:`^starts goroutines through a call$`
	var group sync.WaitGroup
	group.Go(func() { f() })
	group.Wait()
}
