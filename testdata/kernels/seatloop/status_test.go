package seatloop

import (
	"testing"
	"time"
)

// TestPollStatus polls the board's status while two members become
// ready, as open-feature's multi-provider test does: the board must not
// say Ready before both are.
func TestPollStatus(t *testing.T) {
	b := NewBoard("a", "b")
	done := make(chan bool)
	go func() {
		for b.Status() != Ready {
		}
		done <- true
	}()
	b.Update("a", true)
	b.Update("b", true)
	<-done
}

// TestPollTwoGetters polls the board through its two getters of the
// status in turn (Ready, then Status) while two members become ready:
// a poll, not an update, whichever getter it reads last.
func TestPollTwoGetters(t *testing.T) {
	b := NewBoard("a", "b")
	done := make(chan bool)
	go func() {
		for !b.Ready() || b.Status() != Ready {
		}
		done <- true
	}()
	b.Update("a", true)
	b.Update("b", true)
	<-done
}

// TestPollFlag loads the flag's member and then polls its status while
// one goroutine makes it ready and not ready again, one update after the
// other: the poll's step before Status is an atomic load, no update. It
// marks that it waits in an atomic that Update loads (review C's waiter):
// an atomic that the poller stores and the update loads is no step of
// another update, which would store and load it too.
func TestPollFlag(t *testing.T) {
	f := new(Flag)
	done := make(chan bool)
	go func() {
		for f.waiting.Store(true); !f.ready.Load() || !f.Status(); f.waiting.Store(true) {
		}
		done <- true
	}()
	f.Update(true)
	<-done
	f.Update(false)
	if f.Status() != f.ready.Load() {
		t.Error("the flag's status is not its member's")
	}
}

// TestSyncStale is seatclaim's TestFlagStale on Sync, whose updates
// compare and set the status in one section: the flag ends up saying
// what its member is, whichever section runs first.
func TestSyncStale(t *testing.T) {
	f := new(Sync)
	done := make(chan bool)
	go func() {
		f.Update(false)
		done <- true
	}()
	time.Sleep(20 * time.Millisecond)
	f.Update(true)
	<-done
	if got, want := f.Status(), f.ready.Load(); got != want {
		t.Errorf("status %v, want %v", got, want)
	}
}
