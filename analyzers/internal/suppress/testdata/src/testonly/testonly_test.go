package testonly

import "testing"

func TestAdd(t *testing.T) {
	c := NewCounter()
	done := make(chan bool)
	for i := 0; i < 2; i++ {
		go func() {
			c.Add(i)
			done <- true
		}()
	}
	<-done
	<-done
}
