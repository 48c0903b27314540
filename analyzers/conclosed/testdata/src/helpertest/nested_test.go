package helpertest

import "testing"

// A subtest started from a goroutine (neo4j's bolt tests): connect starts
// a fake server's goroutine running job, whose inner.Run body calls
// connect again with its own T. The nested connect's t.Fatal is on the
// nested subtest's T, from the subtest's own goroutine, which inner.Run
// waits for: silent. The outer connect's t.Fatal is on its caller's
// goroutine: silent too.
func TestNestedServer(outer *testing.T) {
	connect := func(t *testing.T, job func()) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			job()
		}()
		if err := serve(); err != nil {
			t.Fatal(err)
		}
		<-done
	}
	outer.Run("outer", func(inner *testing.T) {
		connect(inner, func() {
			inner.Run("nested", func(t *testing.T) {
				// A closure captures t: connect is handed the
				// variable's one value, the subtest's T.
				name := func() string { return t.Name() }
				connect(t, func() { _ = name() })
			})
		})
	})
}

// Negative: the nested body hands connect the outer subtest's T, whose
// body may have returned (its t.Fatal) before the server's goroutine
// runs it.
func TestNestedOuterT(outer *testing.T) {
	connect := func(t *testing.T, job func()) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			job()
		}()
		if err := serve(); err != nil {
			t.Fatal(err) // want `t.Fatal\(err\) called from a goroutine that may outlive the test: func literal in TestNestedOuterT can return before it runs, and then the call panics$`
		}
		<-done
	}
	outer.Run("outer", func(inner *testing.T) {
		connect(inner, func() {
			inner.Run("nested", func(*testing.T) {
				connect(inner, func() {})
			})
		})
	})
}

// Negative: a subtest body that a goroutine the test does not wait for
// starts, calling the test's own T.
func TestRunFromGoroutine(t *testing.T) {
	go func() {
		t.Run("late", func(*testing.T) {
			t.Error("late") // want `t.Error\("late"\) called from a goroutine that may outlive the test: TestRunFromGoroutine can return before it runs, and then the call panics$`
		})
	}()
}
