// Package fuzzleak is fuzzseeds' WRONG twin: the fuzz function starts a
// goroutine that adds its input to a shared total and does not wait for
// it, so one input's goroutine outlives the input's run and races with
// the next input's. The inputs' runs are ordered one after another; the
// goroutines they start are not: reported.
package fuzzleak

// Total sums what it is given.
type Total struct {
	sum int
}

// Add adds n.
func (t *Total) Add(n int) {
	t.sum += n
}
