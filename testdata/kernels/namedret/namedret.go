// Package namedret is the kernel of a read at a bare return of a named
// result (issue 10, item 3): the read of the result happens at the return
// statement, which has no expression of the result to point at; precog
// gives it the return's position (go vet printed "-:" for it, and JSON had
// no file or line).
//
// Bug: Count starts a goroutine that counts into the named result n and
// returns n with a bare return at once, not once the goroutine has
// finished (only done says when it has): the bare return reads n
// while the goroutine writes it (go test -race reports it; the count is
// usually 0). RIGHT version: right.go, the function waits for the
// goroutine, before its bare return or in a deferred call.
package namedret

// Count counts the non-empty items on a goroutine of its own; done is
// closed when it has finished.
func Count(items []string) (n int, done <-chan struct{}) {
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		n = nonEmpty(items) // written by the counting goroutine
	}()
	done = finished
	return // want `n may be read before it is set`
}

func nonEmpty(items []string) int {
	k := 0
	for _, it := range items {
		if it != "" {
			k++
		}
	}
	return k
}
