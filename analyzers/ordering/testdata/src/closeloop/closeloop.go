// Package closeloop: a write, then a close of a channel held in a field,
// on one goroutine; on another, a loop whose only exit is a receive that
// finds the channel closed, and a read after the loop (tus/tusd's s3 part
// producer). The producer's constructor makes the channel, stores it in
// the struct it returns and returns it too; the consumer receives from
// the returned channel, the producer closes its field.
//
// Each positive case's b is asked against two goroutines of produce: the
// one its own function starts, which closes the channel it receives from
// (ordered), and the one the other function starts, which closes another
// channel (unordered).
package closeloop

import "context"

func a(string) {}
func b(string) {}

type Producer struct {
	files chan int
	err   error
}

func NewProducer(n int) (Producer, <-chan int) {
	ch := make(chan int, n)
	return Producer{files: ch}, ch
}

func (p *Producer) produce(ctx context.Context) {
	for i := 0; i < 3; i++ {
		if i == 2 {
			a("loop")
			break
		}
		select {
		case p.files <- i:
		case <-ctx.Done():
			return
		}
	}
	close(p.files)
}

// Range: the consumer ranges over the returned channel, then reads.
func Range(ctx context.Context) {
	p, ch := NewProducer(0)
	go p.produce(ctx)
	for v := range ch {
		_ = v
	}
	b("loop") // want `^loop: \[a before b by channel unordered\]$`
}

// BreakOnClosed: a receive loop whose only exit is the break on !more;
// the producer runs in a function literal.
func BreakOnClosed(ctx context.Context) {
	p, ch := NewProducer(1)
	go func() {
		p.produce(ctx)
	}()
	for {
		v, more := <-ch
		if !more {
			break
		}
		_ = v
	}
	b("loop") // want `^loop: \[unordered a before b by channel\]$`
}

type Early struct {
	files chan int
	err   error
}

func NewEarly() (Early, <-chan int) {
	ch := make(chan int)
	return Early{files: ch}, ch
}

func (p *Early) produce() {
	p.files <- 1
	a("early")
	close(p.files)
}

// OtherExit: the loop also ends on a value, before the close.
func OtherExit() {
	p, ch := NewEarly()
	go p.produce()
	for {
		v, more := <-ch
		if !more || v == 1 {
			break
		}
	}
	b("early") // want `^early: unordered$`
}

type Late struct {
	files chan int
	err   error
}

func NewLate() (Late, <-chan int) {
	ch := make(chan int)
	return Late{files: ch}, ch
}

func (p *Late) produce() {
	close(p.files)
	a("late")
}

// WriteAfterClose: the write follows the close.
func WriteAfterClose() {
	p, ch := NewLate()
	go p.produce()
	for range ch {
	}
	b("late") // want `^late: unordered$`
}

type Given struct {
	files chan int
}

func NewGiven(ch chan int) Given { return Given{files: ch} }

func (p *Given) produce() {
	a("given")
	close(p.files)
}

// Handed: the channel is made by the caller and handed to the
// constructor: a close through the field is not known to close it, and
// another function closes it first.
func Handed() {
	ch := make(chan int)
	p := NewGiven(ch)
	go p.produce()
	go close(ch)
	for range ch {
	}
	b("given") // want `^given: unordered$`
}

type Looped struct {
	files chan int
}

func NewLooped() (Looped, <-chan int) {
	ch := make(chan int)
	return Looped{files: ch}, ch
}

func (p *Looped) produce() {
	a("looped")
	close(p.files)
}

// Twice: one producer started twice: the second goroutine's write may
// follow the first one's close.
func Twice() {
	p, ch := NewLooped()
	for i := 0; i < 2; i++ {
		go p.produce()
	}
	for range ch {
	}
	b("looped") // want `^looped: unordered$`
}
