// Package paralleltestsall is paralleltests' table without a goroutine of
// its own, under -all: the pair of the two parallel subtests' deletes is
// shown with the assumption it rests on.
package paralleltestsall

type Table struct{ data map[string]int }

func New() *Table { return &Table{data: map[string]int{"k": 1}} }

// Delete removes k unless it is empty.
func (t *Table) Delete(k string) bool {
	if k == "" {
		return false
	}
	delete(t.data, k) // want `concurrent map writes: t.data is written here by several goroutines with no common lock \(low confidence: it assumes that parallel tests \(func literal in TestDelete\) reach these accesses of one object at once, with inputs that get past the checks before them\)`
	return true
}
