package raceslice

import "sync"

// Relabel is neo4j's bookmark (held-out rehearsal 26): a variable stored
// before the go statement that starts its reader, and stored again while
// the reader runs. The two stores' reads race, but the reader never sees
// the zero value: the first store happened before its goroutine started.
// Relabel calls send with the label the goroutine read, and returns the
// label stored last.
func Relabel(send func(label string)) string {
	label := "x" // stored before the go statement
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		send(label) // reads "x", or "y" if the store below came first
	}()
	label = "y" // races with the read
	wg.Wait()
	return label
}

// RelabelUnset is Relabel with the bug con-uninit is for: the variable
// is declared without a value, and its first store comes after the go
// statement, so the goroutine may send the empty label.
func RelabelUnset(send func(label string)) string {
	var label string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		send(label) // reads "y", or "" if it runs before the store below // want `may be read before it is set`
	}()
	label = "y" // the first store: races with the read
	wg.Wait()
	return label
}

// RelabelEmpty is RelabelUnset with the variable declared to the empty
// string: the declaration stores the zero value, which initializes nothing
// (precog test records no declaration of a zero), and the goroutine may
// send the empty label.
func RelabelEmpty(send func(label string)) string {
	label := ""
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		send(label) // reads "y", or "" if it runs before the store below
	}()
	label = "y" // the first non-zero store: races with the read
	wg.Wait()
	return label
}
