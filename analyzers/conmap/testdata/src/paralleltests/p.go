// Package paralleltests: a table without a lock, which only parallel
// subtests of one test use at once (minidyn's core table, held-out
// rehearsal 49): whether they reach its writes together is up to their
// inputs, so the pair is of low confidence and not shown by default
// (paralleltestsall shows it). A goroutine of the package's own that
// deletes while another does is reported.
package paralleltests

type Table struct{ data map[string]int }

func New() *Table { return &Table{data: map[string]int{"k": 1}} }

// Delete removes k unless it is empty.
func (t *Table) Delete(k string) bool {
	if k == "" {
		return false
	}
	delete(t.data, k) // want `concurrent map writes: t.data is written here by several goroutines with no common lock`
	return true
}

// Start deletes a and b on goroutines of their own.
func (t *Table) Start(a, b string) {
	go t.Delete(a)
	go t.Delete(b)
}
