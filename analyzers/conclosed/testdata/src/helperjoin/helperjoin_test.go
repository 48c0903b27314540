package helperjoin

import (
	"sync"
	"testing"
)

// drain's goroutine is joined by every caller's call of what it returns.
func drain(t *testing.T, errs chan error) func() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for err := range errs {
			t.Errorf("drain: %v", err)
		}
	}()
	return func() { wg.Wait() }
}

func TestJoined(t *testing.T) {
	errs := make(chan error)
	wait := drain(t, errs)
	if err := serve(); err != nil {
		t.Fatal(err)
	}
	close(errs)
	wait()
}

func TestJoinedToo(t *testing.T) {
	errs := make(chan error)
	wait := drain(t, errs)
	close(errs)
	wait()
}

// skipped's one caller may return without calling what it returned.
func skipped(t *testing.T, errs chan error) func() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for err := range errs {
			t.Errorf("skipped: %v", err) // want `t.Errorf\("skipped: %v", err\) called from a goroutine that may outlive the test: TestSkipped \(through skipped\) can return before it runs, and then the call panics$`
		}
	}()
	return func() { wg.Wait() }
}

func TestSkipped(t *testing.T) {
	errs := make(chan error)
	wait := skipped(t, errs)
	if err := serve(); err != nil {
		return
	}
	close(errs)
	wait()
}

// twice's caller calls only the first of its two results.
func twice(t *testing.T, errs chan error) func() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for err := range errs {
			t.Errorf("twice: %v", err) // want `t.Errorf\("twice: %v", err\) called from a goroutine that may outlive the test: TestTwice \(through twice\) can return before it runs, and then the call panics$`
		}
	}()
	return func() { wg.Wait() }
}

func TestTwice(t *testing.T) {
	a, b := make(chan error), make(chan error)
	wait := twice(t, a)
	_ = twice(t, b)
	close(a)
	close(b)
	wait()
}

// other's returned function waits on a WaitGroup its goroutine is not
// counted on.
func other(t *testing.T, errs chan error) func() {
	var wg, wg2 sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for err := range errs {
			t.Errorf("other: %v", err) // want `t.Errorf\("other: %v", err\) called from a goroutine that may outlive the test: TestOther \(through other\) can return before it runs, and then the call panics$`
		}
	}()
	return func() { wg2.Wait() }
}

func TestOther(t *testing.T) {
	errs := make(chan error)
	wait := other(t, errs)
	close(errs)
	wait()
}

// sometimes's returned function waits only on one branch.
func sometimes(t *testing.T, errs chan error, block bool) func() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for err := range errs {
			t.Errorf("sometimes: %v", err) // want `t.Errorf\("sometimes: %v", err\) called from a goroutine that may outlive the test: TestSometimes \(through sometimes\) can return before it runs, and then the call panics$`
		}
	}()
	return func() {
		if block {
			wg.Wait()
		}
	}
}

func TestSometimes(t *testing.T) {
	errs := make(chan error)
	wait := sometimes(t, errs, false)
	close(errs)
	wait()
}

// Exported may be called by the external test package too (the
// export_test.go idiom), whose calls this package does not see.
func Exported(t *testing.T, errs chan error) func() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for err := range errs {
			t.Errorf("exported: %v", err) // want `t.Errorf\("exported: %v", err\) called from a goroutine that may outlive the test: TestExported \(through Exported\) can return before it runs, and then the call panics$`
		}
	}()
	return func() { wg.Wait() }
}

func TestExported(t *testing.T) {
	errs := make(chan error)
	wait := Exported(t, errs)
	close(errs)
	wait()
}

// handed is also handed as a value to a function that calls it and drops
// what it returns (the call graph's dynamic edge keeps the report).
func handed(t *testing.T, errs chan error) func() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for err := range errs {
			t.Errorf("handed: %v", err) // want `t.Errorf\("handed: %v", err\) called from a goroutine that may outlive the test: handed can return before it runs, and then the call panics$`
		}
	}()
	return func() { wg.Wait() }
}

func TestHanded(t *testing.T) {
	errs := make(chan error)
	wait := handed(t, errs)
	close(errs)
	wait()
	runHelper(t, handed)
}

func runHelper(t *testing.T, h func(*testing.T, chan error) func()) {
	h(t, make(chan error))
}
