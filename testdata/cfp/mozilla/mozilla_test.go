package mozilla

import (
	"sync"
	"testing"
	"time"
)

// session makes a context on one goroutine while another shuts the
// runtime down after 2 ms, then runs script on the context.
func session(t *testing.T, script func(cx *Context) int) {
	t.Helper()
	rt := &Runtime{}
	var wg sync.WaitGroup
	wg.Add(2)
	var cx *Context
	go func() {
		defer wg.Done()
		time.Sleep(2 * time.Millisecond)
		rt.Shutdown()
	}()
	go func() {
		defer wg.Done()
		cx = rt.NewContext()
	}()
	wg.Wait()
	if n := script(cx); n < -1 {
		t.Errorf("script returned %d", n)
	}
}

// The inputs: different scripts on the same runtime shape.

func TestEval(t *testing.T) {
	session(t, func(cx *Context) int { return cx.Eval("var a = 1; a + 1;") })
}

func TestIntern(t *testing.T) {
	session(t, func(cx *Context) int { return cx.Intern("length") })
}

func TestEvalIntern(t *testing.T) {
	session(t, func(cx *Context) int { return cx.Eval("x;y") + cx.Intern("x") })
}
