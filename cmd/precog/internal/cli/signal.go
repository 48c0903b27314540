package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

// An Interrupt is the cause of a context that WithSignals cancelled.
type Interrupt struct{ Signal syscall.Signal }

func (i *Interrupt) Error() string {
	switch i.Signal {
	case syscall.SIGINT:
		return "interrupted by SIGINT"
	case syscall.SIGTERM:
		return "interrupted by SIGTERM"
	case syscall.SIGQUIT:
		return "interrupted by SIGQUIT"
	}
	return "interrupted by " + i.Signal.String()
}

// ExitStatus is the conventional status of a process ended by the signal:
// 128 plus its number (130 for SIGINT, 131 for SIGQUIT, 143 for SIGTERM).
func (i *Interrupt) ExitStatus() int { return 128 + int(i.Signal) }

// StopBound is how long precog's commands have, after the first signal,
// to stop their test processes (proc.Grace between SIGINT and SIGKILL, and
// the second after it that Wait gives a pipe's holder), clean up and
// return, before WithSignals ends precog itself: a checker busy on a
// trace, or a go command slow to die, must not keep a CI job's
// cancellation waiting.
const StopBound = 10 * time.Second

// repeatWindow is how soon after the first signal the same signal again
// is the same request, not a second one that ends precog at once: GNU
// timeout (without --foreground) sends its signal to precog and then to
// precog's process group, which precog is in, microseconds apart, and so
// do job runners that signal a process and its group; a user's second
// Ctrl-C comes hundreds of milliseconds after the first, at the least.
const repeatWindow = 100 * time.Millisecond

// Signals configures WithSignals.
type Signals struct {
	// Cleanup removes what precog must not leave behind (its temporary
	// directory), on the paths that end it without Main returning.
	Cleanup func()
	// Stderr gets SIGQUIT's goroutine dump.
	Stderr io.Writer
	// Exit ends the process (os.Exit); Bound is StopBound if 0. Tests
	// set both.
	Exit  func(code int)
	Bound time.Duration
}

// WithSignals returns a context that the first SIGINT, SIGTERM or SIGQUIT
// cancels, with an *Interrupt as its cause: the commands then stop their
// test processes (package pipeline/proc), remove their temporary
// directories and return, and Main reports the interruption and exits with
// the signal's status. SIGQUIT first writes the stacks of precog's
// goroutines, as Go's default handling of it does (timeout -s QUIT is how
// a hang is diagnosed), which would otherwise end precog at once and leave
// its temporary directories behind. A second signal (but the same one
// again within repeatWindow), or the commands still running StopBound
// after the first, ends precog at once, after s.Cleanup. stop releases
// the signals.
func WithSignals(parent context.Context, s Signals) (ctx context.Context, stop func()) {
	if s.Exit == nil {
		s.Exit = os.Exit
	}
	if s.Bound == 0 {
		s.Bound = StopBound
	}
	if s.Cleanup == nil {
		s.Cleanup = func() {}
	}
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 2)
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT}
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		var sig syscall.Signal
		select {
		case v := <-ch:
			sig, _ = v.(syscall.Signal)
		case <-done:
			return
		}
		if sig == syscall.SIGQUIT && s.Stderr != nil {
			dumpStacks(s.Stderr)
		}
		intr := &Interrupt{Signal: sig}
		cancel(intr)
		first := time.Now()
		bound := time.NewTimer(s.Bound)
		defer bound.Stop()
		why := fmt.Sprintf("its work had not stopped %v later", s.Bound)
	wait:
		for {
			select {
			case v := <-ch:
				again, _ := v.(syscall.Signal)
				if again == sig && time.Since(first) < repeatWindow {
					continue // the first request, delivered twice
				}
				sig = again
				why = "then " + (&Interrupt{Signal: sig}).Error()[len("interrupted "):]
				break wait
			case <-bound.C:
				break wait
			case <-done:
				return
			}
		}
		s.Cleanup()
		if s.Stderr != nil {
			fmt.Fprintf(s.Stderr, "precog: %s, %s: ended at once, its temporary files removed\n", intr.Error(), why)
		}
		s.Exit(128 + int(sig))
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// dumpStacks writes the stacks of all goroutines in the form of Go's own
// SIGQUIT dump.
func dumpStacks(w io.Writer) {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	fmt.Fprintf(w, "SIGQUIT: quit\n\n%s\n", buf)
}
