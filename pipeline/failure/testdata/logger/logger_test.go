// The test whose output made ../fatal-then-log.txt: go test -c, then, as
// precog record runs a test, ./logger.test -test.v
// -test.run='^TestFatalThenLog$' >out 2>&1. The go tool ignores testdata,
// so this file builds only when copied into a module of its own.
package logger

import (
	"sync"
	"testing"
	"time"
)

// adapter is a logger of the code under test that writes through the
// test's t.Log, as go-nsq's tests give their consumers.
type adapter struct{ t *testing.T }

func (a adapter) Output(s string) { a.t.Log(s) }

// TestFatalThenLog fails with t.Fatalf while a goroutine logs through the
// adapter; the deferred wait puts its second line after the t.Fatalf's,
// before go test's "--- FAIL".
func TestFatalThenLog(t *testing.T) {
	log := adapter{t}
	var wg sync.WaitGroup
	defer wg.Wait()
	started := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		log.Output("INF connecting to nsqd")
		close(started)
		time.Sleep(50 * time.Millisecond)
		log.Output("INF 1 [topic/ch] connecting to nsqd")
	}()
	<-started
	t.Logf("waiting for the commands")
	t.Fatalf("we got %d commands != %d expected", 0, 10)
}
