package deferstop

import "testing"

type Joined struct{ gate chan struct{} }

func NewJoined() *Joined {
	p := &Joined{gate: make(chan struct{})}
	go p.run()
	return p
}

func (p *Joined) run() {
	for range p.gate {
	}
}

func (p *Joined) Next() { p.gate <- struct{}{} }

func (p *Joined) Stop() { close(p.gate) }

type FatalFirst struct{ gate chan struct{} }

func NewFatalFirst() *FatalFirst {
	p := &FatalFirst{gate: make(chan struct{})}
	go p.run()
	return p
}

func (p *FatalFirst) run() {
	for range p.gate {
	}
}

func (p *FatalFirst) Next() {
	p.gate <- struct{}{} // want `send on closed channel: p\.gate may be closed concurrently by \(\*FatalFirst\)\.Stop`
}

func (p *FatalFirst) Stop() { close(p.gate) }

type Helper struct{ gate chan struct{} }

func NewHelper() *Helper {
	p := &Helper{gate: make(chan struct{})}
	go p.run()
	return p
}

func (p *Helper) run() {
	for range p.gate {
	}
}

func (p *Helper) Next() {
	p.gate <- struct{}{} // want `send on closed channel: p\.gate may be closed concurrently by \(\*Helper\)\.Stop`
}

func (p *Helper) Stop() { close(p.gate) }

type Iface struct{ gate chan struct{} }

func NewIface() *Iface {
	p := &Iface{gate: make(chan struct{})}
	go p.run()
	return p
}

func (p *Iface) run() {
	for range p.gate {
	}
}

func (p *Iface) Next() {
	p.gate <- struct{}{} // want `send on closed channel: p\.gate may be closed concurrently by \(\*Iface\)\.Stop`
}

func (p *Iface) Stop() { close(p.gate) }

type Held struct{ gate chan struct{} }

func NewHeld() *Held {
	p := &Held{gate: make(chan struct{})}
	go p.run()
	return p
}

func (p *Held) run() {
	for range p.gate {
	}
}

func (p *Held) Next() {
	p.gate <- struct{}{} // want `send on closed channel: p\.gate may be closed concurrently by \(\*Held\)\.Stop`
}

func (p *Held) Stop() { close(p.gate) }

// failer is the part of testing.TB that an assertion library takes
// (testify's require.TestingT).
type failer interface {
	Errorf(format string, args ...any)
	FailNow()
}

func mustOK(f failer, ok bool) {
	if !ok {
		f.FailNow()
	}
}

// asserter holds the test, as testify's *require.Assertions does.
type asserter struct{ t *testing.T }

func (a asserter) ok(ok bool) {
	if !ok {
		a.t.FailNow()
	}
}

func TestJoined(t *testing.T) {
	p := NewJoined()
	defer p.Stop()
	done := make(chan struct{})
	go func() {
		p.Next()
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("Next returned early")
	default:
	}
	<-done
}

func TestFatalFirst(t *testing.T) {
	p := NewFatalFirst()
	defer p.Stop()
	done := make(chan struct{})
	go func() {
		p.Next()
		close(done)
	}()
	if testing.Short() {
		t.Fatal("short")
	}
	<-done
}

func TestHelper(t *testing.T) {
	p := NewHelper()
	defer p.Stop()
	done := make(chan struct{})
	go func() {
		p.Next()
		close(done)
	}()
	check(t)
	<-done
}

func check(t *testing.T) {
	if testing.Short() {
		t.Fatal("short")
	}
}

func TestIface(t *testing.T) {
	p := NewIface()
	defer p.Stop()
	done := make(chan struct{})
	go func() {
		p.Next()
		close(done)
	}()
	mustOK(t, !testing.Short())
	<-done
}

func TestHeld(t *testing.T) {
	p := NewHeld()
	defer p.Stop()
	a := asserter{t}
	done := make(chan struct{})
	go func() {
		p.Next()
		close(done)
	}()
	a.ok(!testing.Short())
	<-done
}
