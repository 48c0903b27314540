package shim

import (
	"github.com/precog-dev/precog/shim/trace"
	"sync"
	"unsafe"
)

// Lock acquires m, then records Lock.
func Lock(site uint32, m *sync.Mutex) {
	var l Local
	LockL(&l, site, m)
}

// Unlock records Unlock, then releases m (so an unlock of an unlocked mutex,
// which is fatal, is in the trace).
func Unlock(site uint32, m *sync.Mutex) {
	var l Local
	UnlockL(&l, site, m)
}

// The mutex operations for a function body with a Local (see Local), which
// the rewriter emits where it has one. Lock, Unlock, RWLock, RWUnlock, RLock
// and RUnlock are the same with a Local of their own, which looks the
// goroutine up at the operation.

// LockL is Lock for a function body with a Local.
func LockL(l *Local, site uint32, m *sync.Mutex) {
	if !enabled {
		m.Lock()
		return
	}
	g := l.state()
	gate(g, site, trace.EvLock, unsafe.Pointer(m))
	m.Lock()
	g.syncEvent(site, trace.EvLock, unsafe.Pointer(m), 0)
}

// UnlockL is Unlock for a function body with a Local.
func UnlockL(l *Local, site uint32, m *sync.Mutex) {
	if !enabled {
		m.Unlock()
		return
	}
	g := l.state().releaseBefore(site, trace.EvUnlock, unsafe.Pointer(m), 0)
	m.Unlock()
	g.released()
}

// RWLockL is RWLock for a function body with a Local.
func RWLockL(l *Local, site uint32, m *sync.RWMutex) {
	if !enabled {
		m.Lock()
		return
	}
	g := l.state()
	gate(g, site, trace.EvLock, unsafe.Pointer(m))
	m.Lock()
	g.syncEvent(site, trace.EvLock, unsafe.Pointer(m), 0)
}

// RWUnlockL is RWUnlock for a function body with a Local.
func RWUnlockL(l *Local, site uint32, m *sync.RWMutex) {
	if !enabled {
		m.Unlock()
		return
	}
	g := l.state().releaseBefore(site, trace.EvUnlock, unsafe.Pointer(m), 0)
	m.Unlock()
	g.released()
}

// RLockL is RLock for a function body with a Local.
func RLockL(l *Local, site uint32, m *sync.RWMutex) {
	if !enabled {
		m.RLock()
		return
	}
	g := l.state()
	gate(g, site, trace.EvRLock, unsafe.Pointer(m))
	m.RLock()
	g.syncEvent(site, trace.EvRLock, unsafe.Pointer(m), 0)
}

// RUnlockL is RUnlock for a function body with a Local.
func RUnlockL(l *Local, site uint32, m *sync.RWMutex) {
	if !enabled {
		m.RUnlock()
		return
	}
	g := l.state().releaseBefore(site, trace.EvRUnlock, unsafe.Pointer(m), 0)
	m.RUnlock()
	g.released()
}

// TryLock records TryLock with its outcome.
func TryLock(site uint32, m *sync.Mutex) bool {
	if !enabled {
		return m.TryLock()
	}
	g := gateSync(site, trace.EvTryLock, unsafe.Pointer(m))
	ok := m.TryLock()
	g.syncEvent(site, trace.EvTryLock, unsafe.Pointer(m), b2u(ok))
	return ok
}

// RWLock is (*sync.RWMutex).Lock.
func RWLock(site uint32, m *sync.RWMutex) {
	var l Local
	RWLockL(&l, site, m)
}

// RWUnlock is (*sync.RWMutex).Unlock.
func RWUnlock(site uint32, m *sync.RWMutex) {
	var l Local
	RWUnlockL(&l, site, m)
}

// RWTryLock is (*sync.RWMutex).TryLock.
func RWTryLock(site uint32, m *sync.RWMutex) bool {
	if !enabled {
		return m.TryLock()
	}
	g := gateSync(site, trace.EvTryLock, unsafe.Pointer(m))
	ok := m.TryLock()
	g.syncEvent(site, trace.EvTryLock, unsafe.Pointer(m), b2u(ok))
	return ok
}

// RLock is (*sync.RWMutex).RLock.
func RLock(site uint32, m *sync.RWMutex) {
	var l Local
	RLockL(&l, site, m)
}

// RUnlock is (*sync.RWMutex).RUnlock.
func RUnlock(site uint32, m *sync.RWMutex) {
	var l Local
	RUnlockL(&l, site, m)
}

// TryRLock is (*sync.RWMutex).TryRLock. The trace has no read-TryLock kind:
// a success is recorded as RLock, a failure as nothing.
func TryRLock(site uint32, m *sync.RWMutex) bool {
	if !enabled {
		return m.TryRLock()
	}
	g := gateSync(site, trace.EvRLock, unsafe.Pointer(m))
	ok := m.TryRLock()
	if ok {
		g.syncEvent(site, trace.EvRLock, unsafe.Pointer(m), 0)
	}
	return ok
}

// LockerLock is a Lock call through a sync.Locker; the recorded address is
// the interface's data word (the *Mutex or *RWMutex for the usual lockers).
func LockerLock(site uint32, l sync.Locker) {
	if !enabled {
		l.Lock()
		return
	}
	a := ifaceData(unsafe.Pointer(&l))
	g := gateSync(site, trace.EvLock, a)
	l.Lock()
	g.syncEvent(site, trace.EvLock, a, 0)
}

// LockerUnlock is an Unlock call through a sync.Locker.
func LockerUnlock(site uint32, l sync.Locker) {
	if !enabled {
		l.Unlock()
		return
	}
	g := releaseBefore(site, trace.EvUnlock, ifaceData(unsafe.Pointer(&l)), 0)
	l.Unlock()
	g.released()
}

// LockFunc replaces the method value m.Lock.
func LockFunc(site uint32, m *sync.Mutex) func() { return func() { Lock(site, m) } }

// UnlockFunc replaces the method value m.Unlock.
func UnlockFunc(site uint32, m *sync.Mutex) func() { return func() { Unlock(site, m) } }

// RWLockFunc replaces the method value m.Lock of a RWMutex.
func RWLockFunc(site uint32, m *sync.RWMutex) func() { return func() { RWLock(site, m) } }

// RWUnlockFunc replaces the method value m.Unlock of a RWMutex.
func RWUnlockFunc(site uint32, m *sync.RWMutex) func() { return func() { RWUnlock(site, m) } }

// RLockFunc replaces the method value m.RLock.
func RLockFunc(site uint32, m *sync.RWMutex) func() { return func() { RLock(site, m) } }

// RUnlockFunc replaces the method value m.RUnlock.
func RUnlockFunc(site uint32, m *sync.RWMutex) func() { return func() { RUnlock(site, m) } }

// WGAdd records WGAdd before adding, so that a negative counter panic is in
// the trace.
func WGAdd(site uint32, wg *sync.WaitGroup, delta int) {
	if !enabled {
		wg.Add(delta)
		return
	}
	g := releaseBefore(site, trace.EvWGAdd, unsafe.Pointer(wg), uint64(int64(delta)))
	wg.Add(delta)
	g.released()
}

// WGDone records WGDone, then calls wg.Done.
func WGDone(site uint32, wg *sync.WaitGroup) {
	if !enabled {
		wg.Done()
		return
	}
	g := releaseBefore(site, trace.EvWGDone, unsafe.Pointer(wg), 0)
	wg.Done()
	g.released()
}

// WGWait records WGWait after Wait returns.
func WGWait(site uint32, wg *sync.WaitGroup) {
	if !enabled {
		wg.Wait()
		return
	}
	g := gateSync(site, trace.EvWGWait, unsafe.Pointer(wg))
	g.clockBefore(site)
	wg.Wait()
	g.clockAfter(site)
	g.syncEvent(site, trace.EvWGWait, unsafe.Pointer(wg), 0)
}

// OnceDo records OnceDo after Do returns.
func OnceDo(site uint32, o *sync.Once, f func()) {
	if !enabled {
		o.Do(f)
		return
	}
	g := gateSync(site, trace.EvOnceDo, unsafe.Pointer(o))
	o.Do(f)
	g.syncEvent(site, trace.EvOnceDo, unsafe.Pointer(o), 0)
}

// CondWait records CondWait after Wait returns (c.L is held again).
func CondWait(site uint32, c *sync.Cond) {
	if !enabled {
		c.Wait()
		return
	}
	g := gateSync(site, trace.EvCondWait, unsafe.Pointer(c))
	g.clockBefore(site)
	c.Wait()
	g.clockAfter(site)
	g.syncEvent(site, trace.EvCondWait, unsafe.Pointer(c), 0)
}

// CondSignal records CondSignal, then signals.
func CondSignal(site uint32, c *sync.Cond) {
	if !enabled {
		c.Signal()
		return
	}
	g := releaseBefore(site, trace.EvCondSignal, unsafe.Pointer(c), 0)
	c.Signal()
	g.released()
}

// CondBroadcast records CondBroadcast, then broadcasts.
func CondBroadcast(site uint32, c *sync.Cond) {
	if !enabled {
		c.Broadcast()
		return
	}
	g := releaseBefore(site, trace.EvCondBroadcast, unsafe.Pointer(c), 0)
	c.Broadcast()
	g.released()
}

// PoolPut records PoolPut with the object x (its data word) and the pool,
// then puts x. The Go memory model's rule for sync.Pool, a Put of x
// before the Get that returns x, is detect/hb's.
func PoolPut(site uint32, p *sync.Pool, x any) {
	if enabled {
		syncBefore(site, trace.EvPoolPut, ifaceData(unsafe.Pointer(&x)), uint64(uintptr(unsafe.Pointer(p))))
	}
	p.Put(x)
}

// PoolGet calls Get and records PoolGet with the object it returned.
func PoolGet(site uint32, p *sync.Pool) any {
	if !enabled {
		return p.Get()
	}
	g := gateSync(site, trace.EvPoolGet, unsafe.Pointer(p))
	x := p.Get()
	g.syncEvent(site, trace.EvPoolGet, ifaceData(unsafe.Pointer(&x)), uint64(uintptr(unsafe.Pointer(p))))
	return x
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// ifaceData returns the data word of the interface value at p.
func ifaceData(p unsafe.Pointer) unsafe.Pointer { return (*[2]unsafe.Pointer)(p)[1] }
