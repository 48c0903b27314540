// Package lastrelease is a tracer's pooled, reference-counted spans
// (jaeger-client-go's): a span's count starts at 0 for its creator, the
// reporter retains it before queueing it, and the release whose decrement
// returns -1 puts it back into the pool, whose Put clears its fields. The
// creator's uses before its Finish and the reporter's between its receive
// and its release are silent; a use after the goroutine's own release, a
// use of a span loaded from a shared field with no reference taken, and a
// clear reached when the decrement did not return the last value are
// reported.
package lastrelease

import (
	"sync"
	"sync/atomic"
)

type Tracer struct {
	name  string
	alloc allocator
	queue chan *Span
}

// current is the span started last.
var current *Span

type allocator interface {
	Get() *Span
	Put(*Span)
}

type pool struct{ p sync.Pool }

func (a *pool) Get() *Span {
	if s, ok := a.p.Get().(*Span); ok {
		return s
	}
	return &Span{}
}

func (a *pool) Put(s *Span) {
	s.reset()
	a.p.Put(s)
}

type Span struct {
	mu     sync.Mutex
	tracer *Tracer
	tags   []string
	ref    int32
}

func (s *Span) Retain() *Span {
	atomic.AddInt32(&s.ref, 1)
	return s
}

func (s *Span) Release() {
	if atomic.AddInt32(&s.ref, -1) == -1 {
		s.tracer.alloc.Put(s) // the last holder alone: every other one released
	}
}

func (s *Span) reset() {
	s.tracer = nil
	s.tags = s.tags[:0]
	atomic.StoreInt32(&s.ref, 0)
}

func (s *Span) SetTag(k string) {
	s.mu.Lock()
	s.tags = append(s.tags, k)
	s.mu.Unlock()
	_ = s.tracer.name // a holder's use: before its release
}

func (s *Span) Finish() {
	s.tracer.queue <- s.Retain()
	s.Release()
}

func New() *Tracer {
	t := &Tracer{alloc: &pool{}, queue: make(chan *Span)}
	go t.report()
	return t
}

func (t *Tracer) Start() *Span {
	s := t.alloc.Get()
	s.tracer = t
	current = s
	return s
}

// report is the reporter's goroutine: it holds the reference Finish took
// for it from the receive to its release.
func (t *Tracer) report() {
	for s := range t.queue {
		_ = s.tracer.name
		s.Release()
	}
}

// Race uses a span on two goroutines while a third finishes it: the
// goroutines share the creator's reference, which Finish drops last, so
// by the count's contract their uses come before it.
func (t *Tracer) Race() {
	s := t.Start()
	go func() {
		s.SetTag("a")
	}()
	go func() {
		_ = s.tracer.name
	}()
	go func() {
		s.Finish()
	}()
}

// Late uses the span after its goroutine released the reference: the
// last release may have cleared it by then.
func (t *Tracer) Late() {
	s := t.Start()
	go func() {
		s.Release()
		_ = s.tracer.name // want `s.tracer may be nil when dereferenced here: \(\*Span\).reset stores nil to it concurrently`
	}()
	go func() {
		s.Finish()
	}()
}

// Peek loads the current span from a package variable with no reference
// taken.
func (t *Tracer) Peek() {
	s := t.Start()
	go func() {
		c := current
		_ = c.tracer.name // want `c.tracer may be nil when dereferenced here: \(\*Span\).reset stores nil to it concurrently`
	}()
	go func() {
		s.Finish()
	}()
}

// A buffer cleared when its decrement did not return the last value.
type Buf struct {
	owner *Tracer
	ref   int32
}

func (b *Buf) Retain() { atomic.AddInt32(&b.ref, 1) }

func (b *Buf) Release() {
	if atomic.AddInt32(&b.ref, -1) != -1 {
		b.clear() // another holder may still use it
	}
}

func (b *Buf) clear() { b.owner = nil }

func (b *Buf) Use() string {
	return b.owner.name // want `b.owner may be nil when dereferenced here: \(\*Buf\).clear stores nil to it concurrently`
}

func Share(b *Buf) {
	b.Retain()
	go func() {
		b.Use()
		b.Release()
	}()
	b.Use()
	b.Release()
}
