package fuzzleak

import "testing"

func FuzzAdd(f *testing.F) {
	total := &Total{}
	done := make(chan bool, 2)
	f.Add(1)
	f.Add(2)
	f.Fuzz(func(_ *testing.T, n int) {
		go func() { // BUG: outlives this input's run
			total.Add(n)
			done <- true
		}()
	})
	<-done
	<-done
}
