package helpertest

import (
	"sync"
	"testing"
)

func newPair(t *testing.T) {
	go func() {
		if err := serve(); err != nil {
			t.Errorf("serve: %v", err) // want `t.Errorf\("serve: %v", err\) called from a goroutine that may outlive the test: TestA and 1 more test \(through newPair\) can return before it runs, and then the call panics$`
		}
	}()
}

func newWaited(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := serve(); err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	wg.Wait()
}

func TestA(t *testing.T) {
	newPair(t)
	newWaited(t)
}

func TestB(t *testing.T) {
	newPair(t)
}

// testBody is a test's body run through a function value: its return ends
// the test, and it is named as the test.
func testBody(t *testing.T) {
	go func() {
		if err := serve(); err != nil {
			t.Errorf("body: %v", err) // want `t.Errorf\("body: %v", err\) called from a goroutine that may outlive the test: testBody can return before it runs, and then the call panics$`
		}
	}()
}

func run(t *testing.T, f func(*testing.T)) { f(t) }

func TestRun(t *testing.T) {
	run(t, testBody)
}
