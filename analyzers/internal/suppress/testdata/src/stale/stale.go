// Package stale: a //precog:ignore directive naming the check that
// suppresses none of its diagnostics is reported, so stale suppressions
// do not pile up.
package stale

func Fixed() {
	m := map[int]int{}
	go func() {
		// want +1 `precog:ignore con-map suppresses nothing`
		m[0] = 1 //precog:ignore con-map another goroutine used to write here too
	}()
}

func Nothing() int {
	// want +1 `precog:ignore con-map suppresses nothing`
	//precog:ignore con-map nothing here at all
	return 0
}
