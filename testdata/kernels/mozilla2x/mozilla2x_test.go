package mozilla2x

import (
	"sync"
	"testing"
	"time"
)

// TestLoadAbort loads a script while the user stops the page 5 ms later.
func TestLoadAbort(t *testing.T) {
	d := &Document{}
	proto := &ScriptProto{src: "document.title = 'x'"}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		d.LoadScript(proto)
		d.OnStreamComplete()
	}()
	go func() {
		defer wg.Done()
		time.Sleep(5 * time.Millisecond)
		d.Abort()
	}()
	wg.Wait()
	if d.bytecode != 2*len(proto.src) {
		t.Errorf("bytecode of %d bytes, want %d", d.bytecode, 2*len(proto.src))
	}
}
