package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestSignalsBound sends this process SIGQUIT: WithSignals writes the
// goroutines' stacks and cancels its context; a command that does not
// return within the bound is ended, after the cleanup, with 131. Its
// negative control returns in time: no cleanup, no exit.
func TestSignalsBound(t *testing.T) {
	for _, returns := range []bool{false, true} {
		var mu sync.Mutex
		var stderr bytes.Buffer
		cleaned, exited := make(chan bool, 1), make(chan int, 1)
		ctx, stop := WithSignals(context.Background(), Signals{
			Cleanup: func() { cleaned <- true },
			Stderr:  writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return stderr.Write(p) }),
			Exit:    func(code int) { exited <- code },
			Bound:   200 * time.Millisecond,
		})
		if err := syscall.Kill(os.Getpid(), syscall.SIGQUIT); err != nil {
			t.Fatal(err)
		}
		<-ctx.Done()
		var intr *Interrupt
		if !errors.As(context.Cause(ctx), &intr) || intr.Signal != syscall.SIGQUIT || intr.ExitStatus() != 131 {
			t.Fatalf("cause %v, want the SIGQUIT interrupt", context.Cause(ctx))
		}
		mu.Lock()
		dump := stderr.String()
		mu.Unlock()
		if !strings.HasPrefix(dump, "SIGQUIT: quit\n\ngoroutine ") || !strings.Contains(dump, "TestSignalsBound") {
			t.Errorf("stderr %.200q: want the goroutines' stacks", dump)
		}
		if returns {
			stop()
			select {
			case <-cleaned:
				t.Error("cleaned up though the command returned in time")
			case <-time.After(400 * time.Millisecond):
			}
			continue
		}
		select {
		case <-cleaned:
		case <-time.After(10 * time.Second):
			t.Fatal("no cleanup after the bound")
		}
		if code := <-exited; code != 131 {
			t.Errorf("exit %d, want 131", code)
		}
		mu.Lock()
		last := stderr.String()[len(dump):]
		mu.Unlock()
		if want := "precog: interrupted by SIGQUIT, its work had not stopped 200ms later: ended at once, its temporary files removed\n"; last != want {
			t.Errorf("stderr after the dump %q, want %q", last, want)
		}
		stop()
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestSignalsRepeat sends this process SIGTERM twice at once, as GNU
// timeout does (to precog, then to its process group): one request, the
// command is left its bound to stop and nothing ends it. Its control sends
// the second SIGTERM after repeatWindow: a second request, which ends
// precog at once with 143.
func TestSignalsRepeat(t *testing.T) {
	for _, later := range []bool{false, true} {
		var mu sync.Mutex
		var stderr bytes.Buffer
		cleaned, exited := make(chan bool, 1), make(chan int, 1)
		ctx, stop := WithSignals(context.Background(), Signals{
			Cleanup: func() { cleaned <- true },
			Stderr:  writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return stderr.Write(p) }),
			Exit:    func(code int) { exited <- code },
			Bound:   time.Minute,
		})
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		<-ctx.Done()
		if later {
			time.Sleep(3 * repeatWindow)
		}
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if !later {
			select {
			case <-cleaned:
				t.Error("ended at once by the same SIGTERM delivered twice")
			case <-time.After(2 * time.Second):
			}
			stop()
			continue
		}
		select {
		case <-cleaned:
		case <-time.After(10 * time.Second):
			t.Fatal("a second SIGTERM after the window did not end precog")
		}
		if code := <-exited; code != 143 {
			t.Errorf("exit %d, want 143", code)
		}
		mu.Lock()
		got := stderr.String()
		mu.Unlock()
		if want := "precog: interrupted by SIGTERM, then by SIGTERM: ended at once, its temporary files removed\n"; got != want {
			t.Errorf("stderr %q, want %q", got, want)
		}
		stop()
	}
}
