// Package mapreuse is a negative control for address reuse, the shape of
// a false con-map report on golang.org/x/mod (zip/zip.go:936): parallel
// subtests each make a map of their own and write it. A map one subtest
// dropped can be collected and its address given to the map another
// subtest makes next, before the shim's GC epochs (counted by a finalizer,
// which runs late) see the collection: the two maps then look like one
// map written by two goroutines at once. precog test must stay silent: a
// map made at an instrumented site is an allocation event (EvMapMake) that
// starts a new location.
package mapreuse

// A Tally counts words.
type Tally struct {
	counts map[string]int
}

// NewTally returns a Tally with a map of its own.
func NewTally() *Tally {
	return &Tally{counts: make(map[string]int)}
}

// Add counts the words.
func (t *Tally) Add(words ...string) {
	for _, w := range words {
		t.counts[w]++
	}
}

// Count returns how often w was added.
func (t *Tally) Count(w string) int { return t.counts[w] }
