package stats

import "time"

// Published is the RIGHT version: Add closes done once both fields are
// set, and Snapshot waits for it. The channel orders the writes before the
// reads: no pair to reverse, and the snapshot always agrees with itself.
type Published struct {
	Histogram
	done chan struct{}
}

// NewPublished returns a histogram whose snapshot waits for the Add.
func NewPublished() *Published { return &Published{done: make(chan struct{})} }

// Add records sample v and then lets Snapshot go.
func (p *Published) Add(v int, bucketing time.Duration) {
	p.Histogram.Add(v, bucketing)
	close(p.done)
}

// Snapshot returns the number of samples and their sum once the Add is
// done.
func (p *Published) Snapshot() (count, sum int) {
	<-p.done
	return p.Histogram.Snapshot()
}
