// Package leakcheck fails a test binary whose tests leave goroutines
// running. A leaked goroutine in a tool that analyzes concurrency bugs is
// exactly the kind of bug it exists to catch, so every precog package that
// starts goroutines, directly or through a driver, checks for them.
//
// Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }
package leakcheck

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// settle is how long Main waits for goroutines to finish after the tests
// return: goroutines that are on their way out (a wait group's last Done,
// a process watcher after Wait) need a moment to be scheduled.
const settle = 5 * time.Second

// Main runs the tests, then reports every goroutine started during them that
// is still running once they have settled, and returns the exit code for
// os.Exit: the tests' own if they failed, 1 if something leaked.
func Main(m *testing.M) int {
	before := make(map[string]bool)
	for _, g := range goroutines() {
		before[g.id] = true
	}
	code := m.Run()
	if code != 0 {
		return code
	}
	var leaked []goroutine
	for deadline := time.Now().Add(settle); ; time.Sleep(10 * time.Millisecond) {
		leaked = leaked[:0]
		for _, g := range goroutines() {
			if !before[g.id] && !background(g.stack) {
				leaked = append(leaked, g)
			}
		}
		if len(leaked) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(leaked) == 0 {
		return 0
	}
	fmt.Fprintf(os.Stderr, "leakcheck: %d goroutine(s) still running after the tests:\n", len(leaked))
	for _, g := range leaked {
		fmt.Fprintf(os.Stderr, "\n%s\n", g.stack)
	}
	return 1
}

type goroutine struct {
	id    string // the number in the "goroutine N [state]:" header
	stack string
}

// goroutines returns every goroutine but the calling one.
func goroutines() []goroutine {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var gs []goroutine
	for i, stack := range strings.Split(string(buf), "\n\n") {
		if i == 0 {
			continue // runtime.Stack puts the caller first
		}
		header, _, _ := strings.Cut(stack, "\n")
		id, _, _ := strings.Cut(strings.TrimPrefix(header, "goroutine "), " ")
		gs = append(gs, goroutine{id: id, stack: stack})
	}
	return gs
}

// background reports whether a goroutine belongs to the runtime or the
// testing package and lives as long as the process, whoever started it.
func background(stack string) bool {
	for _, fn := range []string{
		"os/signal.signal_recv",
		"os/signal.loop",
		"runtime.ensureSigM",
		"testing.(*M).startAlarm",
		"testing.runFuzzing",
	} {
		if strings.Contains(stack, fn) {
			return true
		}
	}
	return false
}
