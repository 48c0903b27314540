package genvector

import (
	"testing"
	"time"
)

func fill() *Vec[string] {
	v := &Vec[string]{}
	for _, s := range []string{"a", "b", "c", "d"} {
		v.Push(s)
	}
	return v
}

// TestCopyOut copies the vector while another goroutine pops an element
// 20 ms later.
func TestCopyOut(t *testing.T) {
	v := fill()
	done := make(chan int, 2)
	go func() { done <- len(CopyOut(v)) }()
	go func() { time.Sleep(20 * time.Millisecond); v.Pop(); done <- 0 }()
	if n := <-done + <-done; n < 3 {
		t.Errorf("copied %d elements", n)
	}
}

// TestSnapshot is TestCopyOut on the RIGHT version.
func TestSnapshot(t *testing.T) {
	v := fill()
	done := make(chan int, 2)
	go func() { done <- len(v.Snapshot()) }()
	go func() { time.Sleep(20 * time.Millisecond); v.Pop(); done <- 0 }()
	if n := <-done + <-done; n < 3 {
		t.Errorf("copied %d elements", n)
	}
}
