// Package othertests: a state machine that runs the callbacks its maker
// registered (looplab/fsm). The call graph cannot tell one test's FSM
// from another's, so every test's callbacks look reachable from every
// test's Event calls, including another test's loop. A goroutine started
// in a callback that its own test runs once is taken to start many times
// only through that other test's code: low confidence, silent at the
// default. A callback that its own test's loop runs is reported.
package othertests

type FSM struct{ callbacks map[string]func() }

func New(cbs map[string]func()) *FSM { return &FSM{callbacks: cbs} }

func (f *FSM) Event(name string) {
	if fn, ok := f.callbacks[name]; ok {
		fn()
	}
}
