package seatclaim

import (
	"testing"
	"time"
)

// keepAlive receives five responses on one goroutine while the test,
// a moment later, checks the stream's health: each response counted
// must have its time. The receives are done long before the check
// unless the check falls between a receive's count and its time.
func keepAlive(t *testing.T, received func(int64) bool, healthy func() (int64, int64)) {
	done := make(chan bool)
	go func() {
		for i := range 5 {
			received(int64(i + 1))
		}
		done <- true
	}()
	time.Sleep(5 * time.Millisecond)
	if n, last := healthy(); last != n {
		t.Errorf("%d responses counted, the last at %d", n, last)
	}
	<-done
}

// TestCalleeCount: the count taken in a callee's section.
func TestCalleeCount(t *testing.T) {
	k := &CalleeCount{}
	keepAlive(t, k.Received, k.Healthy)
}

// TestAtomicCount: the count taken by an atomic outside any section.
func TestAtomicCount(t *testing.T) {
	k := &AtomicCount{}
	keepAlive(t, k.Received, k.Healthy)
}

// TestMapCount: the count taken by a map write the getter ranges over.
func TestMapCount(t *testing.T) {
	k := &MapCount{seen: make(map[int64]bool)}
	keepAlive(t, k.Received, k.Healthy)
}

// TestLoopCount: the count taken in a loop's first turn, at the set's
// own Lock site.
func TestLoopCount(t *testing.T) {
	k := &LoopCount{}
	keepAlive(t, k.Received, k.Healthy)
}

// TestSpawnedCount: the count taken by a goroutine the update starts and
// waits for.
func TestSpawnedCount(t *testing.T) {
	k := &SpawnedCount{}
	keepAlive(t, k.Received, k.Healthy)
}
