package othertests

import "testing"

func TestOnce(t *testing.T) {
	done := make(chan struct{})
	f := New(map[string]func(){
		"enter": func() {
			go func() { close(done) }()
		},
	})
	f.Event("enter")
	<-done
}

func TestLoop(t *testing.T) {
	n := 0
	f := New(map[string]func(){"enter": func() { n++ }})
	for i := 0; i < 3; i++ {
		f.Event("enter")
	}
}

func TestOwnLoop(t *testing.T) {
	done := make(chan struct{})
	f := New(map[string]func(){
		"enter": func() {
			go func() { close(done) }() // want `close of closed channel: done may also be closed`
		},
	})
	for i := 0; i < 2; i++ {
		f.Event("enter")
	}
}
