package waitgroup

import "sync"

func work() error { return nil }

// A Done on each branch after the work: neither post-dominates it alone.
func DoneOnEachBranch(n int) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			if err := work(); err != nil {
				a("each branch")
				wg.Done()
				return
			}
			a("each branch")
			wg.Done()
		}()
	}
	wg.Wait()
	b("each branch") // want `^each branch: a before b by wait$`
}

// An early return without Done: the Wait cannot return for that
// goroutine, so whatever it did first is ordered.
func EarlyReturnSkipsDone() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		if err := work(); err != nil {
			a("skips done")
			return
		}
		wg.Done()
	}()
	wg.Wait()
	b("skips done") // want `^skips done: a before b by wait$`
}

// Negative: the work may come after a Done on another branch.
func DoneThenWork(c bool) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		if c {
			wg.Done()
		}
		a("done then work")
		if !c {
			wg.Done()
		}
	}()
	wg.Wait()
	b("done then work") // want `^done then work: unordered$`
}

// A Wait at the end of each batch joins the batch before the code after
// the loop, which it does not dominate.
func Batches(nbatch, n int) {
	var wg sync.WaitGroup
	for batch := 0; batch < nbatch; batch++ {
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a("batches")
			}()
		}
		wg.Wait()
	}
	b("batches") // want `^batches: a before b by wait$`
}

// Negative: the Wait sits on one branch of the batch only.
func SomeBatches(nbatch int, c bool) {
	var wg sync.WaitGroup
	for batch := 0; batch < nbatch; batch++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a("some batches")
		}()
		if c {
			wg.Wait()
		}
	}
	b("some batches") // want `^some batches: unordered$`
}

// A counted goroutine that adds for the goroutine it starts keeps the
// counter above zero until its deferred Done.
func NestedAdd(n int) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a("nested add")
			wg.Add(1)
			go func() {
				defer wg.Done()
				a("nested inner")
			}()
		}()
	}
	wg.Wait()
	b("nested add")   // want `^nested add: a before b by wait$`
	b("nested inner") // want `^nested inner: a before b by wait$`
}

// Negative: a goroutine that counts itself may not have run its Add when
// the Wait returns.
func SelfAdd() {
	var wg sync.WaitGroup
	go func() {
		wg.Add(1)
		defer wg.Done()
		a("self add")
	}()
	wg.Wait()
	b("self add") // want `^self add: unordered$`
}
