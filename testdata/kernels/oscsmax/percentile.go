package oscsmax

import (
	"math"
	"sort"
	"sync"
	"sync/atomic"
)

// Dist is a distribution of small values, as pubsub's ack-latency
// distribution (held-out 27): Record counts a value with an atomic add,
// Percentile fills sums, a scratch slice, with the running sums under mu
// and binary-searches it in the same critical section. Two Percentile
// calls each overwrite the sums with what they count (another, if a
// Record came between): a lost update of every sum, but each call reads
// back only what it wrote, and nothing else reads the sums. Either order
// gives each call its own answer; nothing may be reported.
type Dist struct {
	buckets [8]uint64
	mu      sync.Mutex
	sums    [8]uint64
}

// Record counts v, one of 0 to 7.
func (d *Dist) Record(v int) {
	atomic.AddUint64(&d.buckets[v], 1)
}

// Percentile returns the smallest value at or under which a fraction p of
// the recorded values fall.
func (d *Dist) Percentile(p float64) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	var sum uint64
	for i := range d.sums {
		sum += atomic.LoadUint64(&d.buckets[i])
		d.sums[i] = sum
	}
	target := uint64(math.Ceil(float64(sum) * p))
	return sort.Search(len(d.sums), func(i int) bool { return d.sums[i] >= target })
}
