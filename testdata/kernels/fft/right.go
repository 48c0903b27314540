package fft

import (
	"fmt"
	"io"
	"sync"
)

// The RIGHT version of the same code, which precog vet must not report:
// gInitDone, written by slave 0, is printed after wg.Wait.

var gInitDone int64 // set by slave 0 after its initialization

// RunJoined is FFT's main printing only what the joined slaves wrote. The
// slaves only initialize: the rows are left to Run.
func RunJoined(out io.Writer, p int) {
	start := now()
	var wg sync.WaitGroup
	for i := 0; i < p; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 0 {
				gInitDone = now()
			}
		}()
	}
	wg.Wait()
	fmt.Fprintf(out, "Init done at %d\n", gInitDone-start)
}
