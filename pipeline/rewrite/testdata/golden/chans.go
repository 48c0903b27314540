package p

type msg struct{ n int }

type C chan int

type box struct {
	ch  chan int
	out chan error
	v   int
}

type myErr struct{}

func (myErr) Error() string { return "e" }

func chans(b *box, done chan struct{}) (int, bool) {
	ch := make(chan int, 3)
	named := make(C)
	_ = named
	ch <- 1
	b.ch <- b.v
	b.out <- myErr{}
	b.out <- nil
	v := <-ch
	w, ok := <-b.ch
	<-done
	var x int
	x, ok = <-ch
	close(ch)
	for m := range b.ch {
		v += m
	}
	for range done {
	}
	select {
	case n := <-ch:
		v += n
	case m, more := <-b.ch:
		_, _ = m, more
	case b.v = <-ch:
	case b.out <- nil:
		return 0, false
	case <-done:
	default:
	}
	select {
	case <-done:
	}
	return v + w + x, ok
}

func rangeAssign(b *box, ch chan int) (last int) {
	for last = range ch {
	}
	for b.v = range ch {
	}
	return last
}

func signal(done chan struct{}) bool {
	select {
	case done <- struct{}{}:
		return true
	default:
		return false
	}
}

type work struct{ n int }

func (b *box) release(w *work) { b.v = w.n }

// drain receives in a call's argument list (fasthttp's
// releasePipelineWork(<-chs.chW)).
func drain(b *box, ch chan *work) {
	for len(ch) > 0 {
		b.release(<-ch)
	}
}

// pump loops back to a labeled select with goto (fasthttp's pipeline
// writer); wait's label is a break target, and both's is named by both.
func pump(in, out chan int, stop chan struct{}) {
	n := 0
again:
	select {
	case v := <-in:
		n += v
	default:
		if n == 0 {
			goto again
		}
	}
	select {
	case out <- n:
	case <-stop:
	}
}

func wait(in chan int) (n int) {
loop:
	select {
	case v := <-in:
		if v < 0 {
			break loop
		}
		n = v
	}
	return n
}

func both(in chan int) (n int) {
both:
	select {
	case v := <-in:
		if v < 0 {
			break both
		}
		n += v
		goto both
	}
	return n
}
