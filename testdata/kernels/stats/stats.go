// Package stats is the multi-variable order bug whose goroutines are
// milliseconds apart (issue 9, targeted perturbation) between plain
// accesses, ordered by timing alone: pattern P12 of unicorn.txt Table I,
// W1(x) R2(x) R2(y) W1(y), with no lock at all.
//
// A histogram keeps the number of samples and their sum, which go
// together: the mean is sum/count. Add counts a sample (S1), works out its
// bucket (a millisecond), then adds it to the sum (S4). Snapshot reads
// both (S2, S3). Nothing orders a snapshot against an Add but time.
//
// Failing interleaving (x is h.count, y is h.sum):
//
//	add goroutine                    snapshot goroutine
//	S1 h.count++
//	   (works out the bucket, ms)
//	                                 S2 h.count   (the new count)
//	                                 S3 h.sum     (the old sum)
//	S4 h.sum += v
//
// In the test the snapshot comes well after the Add ended. The accesses
// are data races (go test -race reports them); for Unicorn, plain accesses
// have no order of their own in the trace: the targeted run that reverses
// S4 and S3 also keeps S1 before S2, the order the first run showed, so
// the failing run knows the whole pattern.
package stats

import "time"

// Histogram counts samples and sums them.
type Histogram struct {
	count int
	sum   int
}

// Add records sample v, which takes bucketing to place.
func (h *Histogram) Add(v int, bucketing time.Duration) {
	h.count++ // S1
	time.Sleep(bucketing)
	h.sum += v // S4
}

// Snapshot returns the number of samples and their sum.
func (h *Histogram) Snapshot() (count, sum int) {
	return h.count, h.sum // S2, S3
}
