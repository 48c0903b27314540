// Package literalmade: a function literal runs only after it is made.
// Setup fills a map and then registers a startup callback that alone
// starts the timers reading it (atomdns's sign handler): the writes come
// before every run of the callback, wherever it is called from, so the
// timers' iterations are silent. A write after the callback is made, or
// a Setup called again on the same object in a loop (its next write may
// run while the first callback's timer iterates), is reported.
package literalmade

import "time"

type Controller struct{ onStartup []func() error }

func (c *Controller) OnStartup(fn func() error) { c.onStartup = append(c.onStartup, fn) }

func (c *Controller) Startup() error {
	for _, fn := range c.onStartup {
		if err := fn(); err != nil {
			return err
		}
	}
	return nil
}

type Sign struct{ Zones map[string]int }

func (s *Sign) Setup(co *Controller, keys []string) {
	s.Zones = map[string]int{}
	for i, k := range keys {
		s.Zones[k] = i
	}
	co.OnStartup(func() error {
		s.resign()
		return nil
	})
}

func (s *Sign) resign() {
	fn := func() {
		for z := range s.Zones {
			_ = z
		}
	}
	time.AfterFunc(time.Hour, fn)
}

type Late struct{ Zones map[string]int }

func (s *Late) Setup(co *Controller, k string) {
	s.Zones = map[string]int{}
	co.OnStartup(func() error {
		s.resign()
		return nil
	})
	s.Zones[k] = 1
}

func (s *Late) resign() {
	time.AfterFunc(time.Hour, func() {
		for z := range s.Zones { // want `s\.Zones is iterated here`
			_ = z
		}
	})
}

type Again struct{ Zones map[string]int }

func (s *Again) Setup(co *Controller, k string) {
	s.Zones[k] = 1
	co.OnStartup(func() error {
		s.resign()
		return nil
	})
}

func (s *Again) resign() {
	time.AfterFunc(time.Hour, func() {
		for z := range s.Zones { // want `s\.Zones is iterated here`
			_ = z
		}
	})
}

// Reload sets s up once per key.
func Reload(s *Again, co *Controller, keys []string) {
	for _, k := range keys {
		s.Setup(co, k)
	}
}
