// Package turns: at most one deliverer goroutine per listener, elected by
// a flag that the starter checks and sets under the mutex and that the
// deliverer clears under it as the last thing it does
// (rabbitmq/amqp091-go's lifeCycle): the deliverer that closes the
// listener's channel never clears the flag, so it is the listener's last,
// and every earlier deliverer's send came before. Silent. Reported: a
// deliverer that clears the flag and then still sends (Loose), and a
// starter that checks the flag without the mutex (Unlocked).
package turns

import "sync"

type listener struct {
	ch      chan int
	queue   []int
	sending bool
}

type lifeCycle struct {
	mu        sync.Mutex
	listeners []*listener
}

func New() *lifeCycle {
	l := &lifeCycle{}
	l.Notify(make(chan int))
	go l.run()
	return l
}

func (l *lifeCycle) run() {
	for i := 0; ; i++ {
		l.Set(i)
		l.setOpen()
	}
}

func (l *lifeCycle) Notify(ch chan int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.listeners = append(l.listeners, &listener{ch: ch})
}

func (l *lifeCycle) Set(v int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ls := range l.listeners {
		ls.queue = append(ls.queue, v)
		if !ls.sending {
			ls.sending = true
			go l.deliver(ls)
		}
	}
}

// setOpen is a second start, as amqp's setStateOpen.
func (l *lifeCycle) setOpen() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ls := range l.listeners {
		ls.queue = append(ls.queue, 0)
		if !ls.sending {
			ls.sending = true
			go l.deliver(ls)
		}
	}
}

func (l *lifeCycle) deliver(ls *listener) {
	for {
		l.mu.Lock()
		if len(ls.queue) == 0 {
			ls.sending = false
			l.mu.Unlock()
			return
		}
		v := ls.queue[0]
		ls.queue = ls.queue[1:]
		ch := ls.ch
		l.mu.Unlock()

		ch <- v
		if v < 0 {
			l.mu.Lock()
			close(ch)
			l.mu.Unlock()
			return
		}
	}
}

// Loose clears the flag and then sends once more: the next deliverer may
// already run.
type Loose struct {
	mu   sync.Mutex
	subs []*sub
}

type sub struct {
	ch      chan int
	last    int
	running bool
}

func NewLoose() *Loose {
	l := &Loose{subs: []*sub{{ch: make(chan int)}}}
	go func() {
		for i := 0; ; i++ {
			l.Set(i)
			l.reset()
		}
	}()
	return l
}

func (l *Loose) Set(v int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.subs {
		s.last = v
		if !s.running {
			s.running = true
			go l.deliver(s)
		}
	}
}

func (l *Loose) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.subs {
		s.last = -1
		if !s.running {
			s.running = true
			go l.deliver(s)
		}
	}
}

func (l *Loose) deliver(s *sub) {
	l.mu.Lock()
	v := s.last
	ch := s.ch
	s.running = false
	l.mu.Unlock()
	ch <- v // want `send on closed channel: ch may be closed concurrently by \(\*Loose\)\.deliver`
	if v < 0 {
		close(ch) // want `close of closed channel: ch may also be closed by \(\*Loose\)\.deliver`
	}
}

// Unlocked checks and sets its flag without the mutex.
type Unlocked struct {
	mu   sync.Mutex
	outs []*out
}

type out struct {
	ch     chan int
	last   int
	active bool
}

func NewUnlocked() *Unlocked {
	u := &Unlocked{outs: []*out{{ch: make(chan int)}}}
	go func() {
		for i := 0; ; i++ {
			u.Set(i)
			u.reset()
		}
	}()
	return u
}

func (u *Unlocked) Set(v int) {
	for _, o := range u.outs {
		if !o.active {
			o.active = true
			go u.deliver(o)
		}
	}
}

func (u *Unlocked) reset() {
	for _, o := range u.outs {
		if !o.active {
			o.active = true
			go u.deliver(o)
		}
	}
}

func (u *Unlocked) deliver(o *out) {
	u.mu.Lock()
	v := o.last
	ch := o.ch
	u.mu.Unlock()
	ch <- v // want `send on closed channel: ch may be closed concurrently by \(\*Unlocked\)\.deliver`
	u.mu.Lock()
	if v < 0 {
		close(ch)
		u.mu.Unlock()
		return
	}
	o.active = false
	u.mu.Unlock()
}
