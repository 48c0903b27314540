// Package serveclosed is wish's testsession.Listen: a helper serves on a
// goroutine and fails the test if Serve returns another error than
// ErrServerClosed, and closes the server in a Cleanup of the test's T.
// Once the Cleanup closed the server, Serve returns ErrServerClosed and
// the failing call does not run; it runs on an error Serve returned while
// the test ran. Reported at low confidence (that the goroutine gets from
// Serve's return to the call before the test ends), left out by default:
// the != and errors.Is forms, a Cleanup on a testing.TB, a deferred
// Close. Reported: a call not guarded by the check, a check of another
// server's error than the one closed, a server the test never closes, and
// a guard on another variable than ErrServerClosed.
package serveclosed

import (
	"errors"
	"testing"
)

var ErrServerClosed = errors.New("server closed")

var errOther = errors.New("other")

type Listener interface{ Accept() (int, error) }

type Server struct{ closed chan struct{} }

func NewServer() *Server { return &Server{closed: make(chan struct{})} }

func (s *Server) Serve(l Listener) error {
	for {
		if _, err := l.Accept(); err != nil {
			select {
			case <-s.closed:
				return ErrServerClosed
			default:
				return err
			}
		}
	}
}

func (s *Server) Close() error { close(s.closed); return nil }

type listener struct{}

func (listener) Accept() (int, error) { return 0, errOther }

func Listen(tb testing.TB, srv *Server) {
	tb.Helper()
	go func() {
		if err := srv.Serve(listener{}); err != nil && err != ErrServerClosed {
			tb.Fatalf("failed to serve: %v", err)
		}
	}()
	tb.Cleanup(func() {
		_ = srv.Close()
	})
}

func TestListen(t *testing.T) {
	Listen(t, NewServer())
}

func TestErrorsIs(t *testing.T) {
	srv := NewServer()
	go func() {
		if err := srv.Serve(listener{}); !errors.Is(err, ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	}()
	t.Cleanup(func() { srv.Close() })
}

func TestEquality(t *testing.T) {
	srv := NewServer()
	go func() {
		if err := srv.Serve(listener{}); err != ErrServerClosed {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { _ = srv.Close() })
}

func TestDeferred(t *testing.T) {
	srv := NewServer()
	defer srv.Close()
	go func() {
		if err := srv.Serve(listener{}); err != ErrServerClosed {
			t.Error(err)
		}
	}()
}

func TestUnguarded(t *testing.T) {
	srv := NewServer()
	go func() {
		err := srv.Serve(listener{})
		t.Log(err) // want `t.Log\(err\) called from a goroutine that may outlive the test`
	}()
	t.Cleanup(func() { _ = srv.Close() })
}

func TestOtherServer(t *testing.T) {
	srv, other := NewServer(), NewServer()
	go func() {
		if err := srv.Serve(listener{}); err != ErrServerClosed {
			t.Error(err) // want `t.Error\(err\) called from a goroutine that may outlive the test`
		}
	}()
	t.Cleanup(func() { _ = other.Close() })
}

func TestNeverClosed(t *testing.T) {
	srv := NewServer()
	go func() {
		if err := srv.Serve(listener{}); err != ErrServerClosed {
			t.Error(err) // want `t.Error\(err\) called from a goroutine that may outlive the test`
		}
	}()
}

func TestOtherGuard(t *testing.T) {
	srv := NewServer()
	go func() {
		if err := srv.Serve(listener{}); err != errOther {
			t.Error(err) // want `t.Error\(err\) called from a goroutine that may outlive the test`
		}
	}()
	t.Cleanup(func() { _ = srv.Close() })
}
