package crashhang

import "testing"

// TestStop runs one job and stops the pool.
func TestStop(t *testing.T) {
	p := Start()
	ran := make(chan bool, 1)
	p.jobs <- func() { ran <- true }
	<-ran
	p.Stop()
}
