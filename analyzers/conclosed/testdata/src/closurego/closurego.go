// Package closurego: a goroutine that calls a closure made before its go
// statement shares what the closure captured, as one that runs the
// closure itself does: a map written after the go statement is reported
// whether the goroutine runs the closure or calls it from a literal of
// its own, or from a closure that captured it in turn. Written only
// before the go statement, it is silent.
package closurego

type Sign struct{ Zones map[string]int }

func (s *Sign) CallsClosure(k string) {
	fn := func() {
		for z := range s.Zones { // want `s\.Zones is iterated here`
			_ = z
		}
	}
	go func() { fn() }()
	s.Zones[k] = 1
}

func (s *Sign) RunsClosure(k string) {
	fn := func() {
		for z := range s.Zones { // want `s\.Zones is iterated here`
			_ = z
		}
	}
	go fn()
	s.Zones[k] = 1
}

func (s *Sign) CallsNested(k string) {
	fn := func() {
		for z := range s.Zones { // want `s\.Zones is iterated here`
			_ = z
		}
	}
	run := func() { fn() }
	go func() { run() }()
	s.Zones[k] = 1
}

func (s *Sign) WritesBefore(k string) {
	s.Zones[k] = 1
	fn := func() {
		for z := range s.Zones {
			_ = z
		}
	}
	go func() { fn() }()
}
