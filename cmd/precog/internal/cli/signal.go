package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// An Interrupt is the cause of a context that WithSignals cancelled.
type Interrupt struct{ Signal syscall.Signal }

func (i *Interrupt) Error() string {
	switch i.Signal {
	case syscall.SIGINT:
		return "interrupted by SIGINT"
	case syscall.SIGTERM:
		return "interrupted by SIGTERM"
	}
	return "interrupted by " + i.Signal.String()
}

// ExitStatus is the conventional status of a process ended by the signal:
// 128 plus its number (130 for SIGINT, 143 for SIGTERM).
func (i *Interrupt) ExitStatus() int { return 128 + int(i.Signal) }

// WithSignals returns a context that the first SIGINT or SIGTERM cancels,
// with an *Interrupt as its cause: the commands then stop their test
// processes (package pipeline/proc), remove their temporary directories
// and return, and Main reports the interruption and exits with the
// signal's status. A second signal ends precog at once, as if it did not
// handle them. stop releases the signals.
func WithSignals(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			sig, _ := s.(syscall.Signal)
			cancel(&Interrupt{Signal: sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}
