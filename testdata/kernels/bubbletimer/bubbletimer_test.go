//go:build go1.25

package bubbletimer

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// TestFresh reads the entries at virtual time zero, one second before
// their timers and deadline fire.
func TestFresh(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		timed := NewTimed("t", time.Second)
		scoped := NewScoped(ctx, "s")
		deferred := NewDeferred("d", time.Second)
		if got := timed.Get(); got != "t" {
			t.Fatalf("timed Get() = %q, want t", got)
		}
		if got := scoped.Get(); got != "s" {
			t.Fatalf("scoped Get() = %q, want s", got)
		}
		if got := deferred.Get(); got != "d" {
			t.Fatalf("deferred Get() = %q, want d", got)
		}
		time.Sleep(2 * time.Second) // all expire at 1s and their goroutines exit
	})
}
