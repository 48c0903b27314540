// Package fft is the CFP paper's Fig. 6 (SPLASH-2 FFT) with the paper's
// inputs: several tests run the transform with different options, and each
// one covers the pair {Run, SlaveStart} that carries the race on gEnd. Full
// detection reports the race once per test (the paper's duplication); CFP
// selects one test, watches Run and SlaveStart in it, and reports it once.
// The bug itself is the runtime FFT kernel's (../../kernels/fft): a
// Con-UnInit order violation with no crash.
//
// main records gStart, creates the SlaveStart goroutines, announces the run
// and prints the end time gEnd, which slave 0 sets from the clock when its
// transform is done. The print comes before the join (WAIT_FOR_END), so main
// can read gEnd before any slave has written it.
//
// Failing interleaving (cfp.txt Fig. 6):
//
//	main goroutine                    SlaveStart(0) goroutine
//	gStart = now()
//	go SlaveStart(0, ...)
//	S2 print("End at", gEnd-gStart)   (gEnd is not set yet)
//	                                  S1 gEnd = now()
//
// Nothing panics: the program prints a negative end time, and the test fails
// on it. The test's normal schedule hides the bug: main writes its banner to
// a slow terminal first, and the slaves finish their small transforms long
// before it returns.
package fft

import (
	"fmt"
	"io"
	"math"
	"math/cmplx"
	"sync"
	"time"
)

var (
	gStart int64 // set by main before the slaves start
	gEnd   int64 // set by slave 0 when its transform is done
)

func now() int64 { return time.Now().UnixNano() }

// SlaveStart transforms one slice of rows in place, or inverts them.
func SlaveStart(myNum int, rows [][]complex128, inverse bool) {
	for _, row := range rows {
		if inverse {
			for i := range row {
				row[i] = cmplx.Conj(row[i])
			}
		}
		fft1D(row)
		if inverse {
			for i := range row {
				row[i] = cmplx.Conj(row[i]) / complex(float64(len(row)), 0)
			}
		}
	}
	if myNum == 0 {
		gEnd = now() // S1
	}
}

// fft1D is an in-place radix-2 transform; len(x) must be a power of two.
func fft1D(x []complex128) {
	n := len(x)
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j ^= bit
		if i < j {
			x[i], x[j] = x[j], x[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		w := cmplx.Exp(complex(0, -2*math.Pi/float64(size)))
		for start := 0; start < n; start += size {
			wk := complex(1, 0)
			for k := 0; k < size/2; k++ {
				a, b := x[start+k], wk*x[start+k+size/2]
				x[start+k], x[start+k+size/2] = a+b, a-b
				wk *= w
			}
		}
	}
}

// Run is FFT's main with p slaves over the rows of a matrix.
func Run(out io.Writer, matrix [][]complex128, p int, inverse bool) {
	gStart = now()
	var wg sync.WaitGroup
	per := (len(matrix) + p - 1) / p
	for i := 0; i < p; i++ {
		lo, hi := min(i*per, len(matrix)), min((i+1)*per, len(matrix))
		wg.Add(1)
		go func() {
			defer wg.Done()
			SlaveStart(i, matrix[lo:hi], inverse)
		}()
	}
	fmt.Fprintf(out, "FFT: %d rows, %d processors\n", len(matrix), p)
	fmt.Fprintf(out, "End at %d\n", gEnd-gStart) // S2
	wg.Wait()
}
