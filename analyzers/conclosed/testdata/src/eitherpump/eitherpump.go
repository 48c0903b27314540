// Package eitherpump: a constructor that starts one of two goroutines
// with the object it made, on either branch of an if, never has both
// running on one object; each pump's channel is its own invocation's
// (silent). A constructor that starts both pumps, one after the other, is
// reported, as is a pump that an exported method lets importers run too.
package eitherpump

type Either struct {
	in, out chan int
}

func NewEither(direct bool) *Either {
	e := &Either{in: make(chan int), out: make(chan int)}
	if direct {
		go e.direct()
	} else {
		go e.buffered()
	}
	return e
}

func (e *Either) direct() {
	for v := range e.in {
		e.out <- v
	}
	close(e.out)
}

func (e *Either) buffered() {
	var buf []int
	for v := range e.in {
		buf = append(buf, v)
	}
	for _, v := range buf {
		e.out <- v
	}
	close(e.out)
}

type Both struct {
	in, out chan int
}

func NewBoth() *Both {
	b := &Both{in: make(chan int), out: make(chan int)}
	go b.direct()
	go b.drain()
	return b
}

func (b *Both) direct() {
	for v := range b.in {
		b.out <- v // want `send on closed channel: b.out may be closed concurrently by \(\*Both\).drain`
	}
}

func (b *Both) drain() {
	close(b.out)
}

type Open struct {
	in, out chan int
}

func NewOpen(direct bool) *Open {
	o := &Open{in: make(chan int), out: make(chan int)}
	if direct {
		go o.direct()
	} else {
		go o.Drain()
	}
	return o
}

func (o *Open) direct() {
	for v := range o.in {
		o.out <- v // want `send on closed channel: o.out may be closed concurrently by \(\*Open\).Drain`
	}
}

func (o *Open) Drain() {
	close(o.out)
}
