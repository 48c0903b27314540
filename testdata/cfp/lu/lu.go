// Package lu is the CFP paper's Fig. 4 (SPLASH-2 LU): lu0 calls daxpy on
// every iteration of its loops and synchronizes with nothing, so every
// function concurrent with lu0 is concurrent with daxpy (Optimization 2):
// the cheap run does not log daxpy, the most frequent function of the
// program, and its pairs are added back from lu0's.
package lu

import "sync"

// lu0 eliminates below the diagonal of the n x n block a, stored by rows.
func lu0(a []float64, n int) {
	for k := 0; k < n; k++ {
		for j := k + 1; j < n; j++ {
			a[j*n+k] /= a[k*n+k]
			daxpy(a[j*n+k+1:j*n+n], a[k*n+k+1:k*n+n], -a[j*n+k])
		}
	}
}

// daxpy adds alpha times x to y.
func daxpy(y, x []float64, alpha float64) {
	for i := range y {
		y[i] += alpha * x[i]
	}
}

// Factor factors p diagonally dominant blocks of size n on p goroutines,
// one block each, and returns the blocks.
func Factor(p, n int) [][]float64 {
	blocks := make([][]float64, p)
	for b := range blocks {
		blocks[b] = make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				blocks[b][i*n+j] = float64(1 + (i+j+b)%3)
			}
			blocks[b][i*n+i] = float64(4 * n)
		}
	}
	var wg sync.WaitGroup
	for b := range blocks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lu0(blocks[b], n)
		}()
	}
	wg.Wait()
	return blocks
}
