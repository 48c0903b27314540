// Package oncestart: a goroutine started inside a sync.Once's Do runs at
// most once per Once. Joe (go-sse's provider, cut down) starts its loop in
// j.initDone.Do, and only the loop touches j.subs: one goroutine per Joe,
// silent although Add, which calls init, runs on many goroutines (reported
// before the Once was followed). Beside it, reported: a Once made anew in
// each call (Fresh), the Once of another object than the one the
// goroutine gets (Other), and a literal handed to the Once and also called
// directly (Again).
package oncestart

import "sync"

type Joe struct {
	initDone sync.Once
	ops      chan int
	subs     map[int]bool
}

func (j *Joe) remove(k int) { delete(j.subs, k) }

func (j *Joe) start() {
	for k := range j.ops {
		if k < 0 {
			j.remove(-k)
			continue
		}
		j.subs[k] = true
		for x := range j.subs {
			j.remove(x)
		}
	}
}

func (j *Joe) init() {
	j.initDone.Do(func() {
		j.ops = make(chan int)
		j.subs = map[int]bool{}
		go j.start()
	})
}

func (j *Joe) Add(k int) { j.init(); j.ops <- k }

func Serve(j *Joe, ks []int) {
	for _, k := range ks {
		go j.Add(k)
	}
}

type Fresh struct {
	ops  chan int
	subs map[int]bool
}

func (f *Fresh) remove(k int) {
	delete(f.subs, k) // want `concurrent map writes: f.subs is written here by several goroutines with no common lock`
}

func (f *Fresh) start() {
	for k := range f.ops {
		if k < 0 {
			f.remove(-k)
			continue
		}
		f.subs[k] = true // want `concurrent map writes: f.subs is written here and by \(\*Fresh\).remove with no common lock`
		for x := range f.subs {
			f.remove(x)
		}
	}
}

// init's Once is a local: every call starts another loop.
func (f *Fresh) init() {
	var once sync.Once
	once.Do(func() { go f.start() })
}

func (f *Fresh) Add(k int) { f.init(); f.ops <- k }

func ServeFresh(f *Fresh, ks []int) {
	for _, k := range ks {
		go f.Add(k)
	}
}

type Other struct {
	ops  chan int
	subs map[int]bool
}

type owner struct{ once sync.Once }

func (o *Other) remove(k int) {
	delete(o.subs, k) // want `concurrent map writes: o.subs is written here by several goroutines with no common lock`
}

func (o *Other) start() {
	for k := range o.ops {
		if k < 0 {
			o.remove(-k)
			continue
		}
		o.subs[k] = true // want `concurrent map writes: o.subs is written here and by \(\*Other\).remove with no common lock`
		for x := range o.subs {
			o.remove(x)
		}
	}
}

// init's Once belongs to w, not to o: o is started once per owner.
func (o *Other) init(w *owner) {
	w.once.Do(func() { go o.start() })
}

func (o *Other) Add(w *owner, k int) { o.init(w); o.ops <- k }

func ServeOther(o *Other, w *owner, ks []int) {
	for _, k := range ks {
		go o.Add(w, k)
	}
}

type Again struct {
	once sync.Once
	ops  chan int
	subs map[int]bool
}

func (a *Again) remove(k int) {
	delete(a.subs, k) // want `concurrent map writes: a.subs is written here by several goroutines with no common lock`
}

func (a *Again) start() {
	for k := range a.ops {
		if k < 0 {
			a.remove(-k)
			continue
		}
		a.subs[k] = true // want `concurrent map writes: a.subs is written here and by \(\*Again\).remove with no common lock`
		for x := range a.subs {
			a.remove(x)
		}
	}
}

// init hands its literal to the Once and, on restart, calls it again.
func (a *Again) init(restart bool) {
	begin := func() { go a.start() }
	a.once.Do(begin)
	if restart {
		begin()
	}
}

func (a *Again) Add(k int) { a.init(k < 0); a.ops <- k }

func ServeAgain(a *Again, ks []int) {
	for _, k := range ks {
		go a.Add(k)
	}
}
