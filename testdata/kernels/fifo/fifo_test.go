package fifo

import (
	"slices"
	"testing"
	"time"
)

// TestPutGet puts two elements, 20 ms apart, while a consumer takes them;
// the consumer normally waits for each.
func TestPutGet(t *testing.T) {
	q := NewQueue()
	got := make(chan []int)
	go func() {
		var vs []int
		for range 2 {
			vs = append(vs, q.Get())
		}
		got <- vs
	}()
	put := make(chan struct{})
	go func() {
		defer close(put)
		for _, v := range []int{1, 2} {
			time.Sleep(20 * time.Millisecond)
			q.Put(v)
		}
	}()
	vs := <-got
	<-put
	if !slices.Equal(vs, []int{1, 2}) {
		t.Errorf("got %v, want [1 2]", vs)
	}
}
