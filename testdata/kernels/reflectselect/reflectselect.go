// Package reflectselect is a negative control for the shim's recording of
// reflect.Select (olebedev/emitter's Group): a listener goroutine waits on
// a dynamic set of channels in reflect.Select, the first of which is the
// group's unbuffered stop channel. Flush sends on it, and once the send
// has completed the listener has taken it and is on its way out, so
// Flush's rewrite of the cases comes after every read of them. No Go panic
// and no data race: precog test reports nothing. Before reflect.Select was
// recorded, the trace had Flush's send without the receive that completes
// it, and the race checker paired the listener's read of g.cases with
// Flush's write.
package reflectselect

import "reflect"

// Group fans the values of its channels into one.
type Group struct {
	cases []reflect.SelectCase
	stop  chan struct{}
	out   chan int
	done  chan struct{}
}

// New returns a group listening on chans.
func New(chans ...chan int) *Group {
	g := &Group{stop: make(chan struct{}), out: make(chan int), done: make(chan struct{})}
	g.cases = append(g.cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(g.stop)})
	for _, ch := range chans {
		g.cases = append(g.cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
	}
	go g.listen()
	return g
}

func (g *Group) listen() {
	defer close(g.done)
	for {
		chosen, v, ok := reflect.Select(g.cases)
		if chosen == 0 {
			return
		}
		if ok {
			g.out <- int(v.Int())
		}
	}
}

// Out returns the channel the values come out on.
func (g *Group) Out() <-chan int { return g.out }

// Flush stops the listener and forgets every channel but the stop.
func (g *Group) Flush() {
	g.stop <- struct{}{}
	g.cases = g.cases[:1]
	<-g.done
}
