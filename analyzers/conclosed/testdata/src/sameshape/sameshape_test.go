// Package sameshape: tests that each start a test server helper on a
// goroutine of their own and report its error, none waiting for it
// (go-mail's 145 tests). One diagnostic, at the first, names the others:
// their fix is one (the helper joined by its tests). A goroutine that
// reports with another message, or calls another helper, is its own.
package sameshape

import (
	"errors"
	"testing"
)

func serve(t *testing.T, port int) error {
	if port < 0 {
		return errors.New("bad port")
	}
	return nil
}

func other(t *testing.T) error { return nil }

func TestA(t *testing.T) {
	go func() {
		if err := serve(t, 1); err != nil {
			t.Errorf("failed to start test server: %s", err) // want `t.Errorf\("failed to start test server: %s", err\) called from a goroutine that may outlive the test: TestA can return before it runs, and then the call panics; so may 2 more goroutines of the same code`
		}
	}()
}

func TestB(t *testing.T) {
	go func() {
		if err := serve(t, 2); err != nil {
			t.Errorf("failed to start test server: %s", err)
		}
	}()
}

func TestC(t *testing.T) {
	go func() {
		if err := serve(t, 3); err != nil {
			t.Errorf("failed to start test server: %s", err)
		}
	}()
}

func TestOtherMessage(t *testing.T) {
	go func() {
		if err := serve(t, 4); err != nil {
			t.Errorf("serve: %s", err) // want `called from a goroutine that may outlive the test: TestOtherMessage can return before it runs, and then the call panics$`
		}
	}()
}

func TestOtherHelper(t *testing.T) {
	go func() {
		if err := other(t); err != nil {
			t.Errorf("failed to start test server: %s", err) // want `called from a goroutine that may outlive the test: TestOtherHelper can return before it runs, and then the call panics$`
		}
	}()
}
