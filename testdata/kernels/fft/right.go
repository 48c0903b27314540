package fft

import (
	"fmt"
	"io"
	"sync"
)

// The RIGHT version of the same code, which precog vet must not report:
// gInitDone, written by slave 0, is printed after wg.Wait.

var gInitDone int64 // set by slave 0 after its initialization

// RunJoined is FFT's main printing only what the joined slaves wrote.
func RunJoined(out io.Writer, matrix [][]complex128, p int) {
	start := now()
	var wg sync.WaitGroup
	per := (len(matrix) + p - 1) / p
	for i := 0; i < p; i++ {
		lo, hi := min(i*per, len(matrix)), min((i+1)*per, len(matrix))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 0 {
				gInitDone = now()
			}
			for _, row := range matrix[lo:hi] {
				fft1D(row)
			}
		}()
	}
	wg.Wait()
	fmt.Fprintf(out, "Init done at %d\n", gInitDone-start)
}
