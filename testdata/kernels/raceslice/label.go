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
		send(label) // reads "y", or "" if it runs before the store below // want `may be read before it is set`
	}()
	label = "y" // the first non-zero store: races with the read
	wg.Wait()
	return label
}

// A tag is a label with a count, for RelabelField.
type tag struct {
	text string
	n    int
}

// RelabelField is Relabel through a field: the declaration's composite
// literal stores t.text before the go statement, and the goroutine reads
// t.text. No con-uninit: precog test records the declaration's store of
// each field path a recorded access reaches the variable by.
func RelabelField(send func(label string)) string {
	t := tag{text: "x", n: 1}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		send(t.text) // reads "x", or "y" if the store below came first
	}()
	t.text = "y" // races with the read
	wg.Wait()
	return t.text
}

// RelabelFieldUnset is RelabelField with the bug: the literal sets only
// the count, so the goroutine may send the empty label.
func RelabelFieldUnset(send func(label string)) string {
	t := tag{n: 1}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		send(t.text) // reads "y", or "" if it runs before the store below // want `may be read before it is set`
	}()
	t.text = "y" // the first store of t.text: races with the read
	wg.Wait()
	return t.text
}

// RelabelIf is Relabel with the label declared by an if statement's init.
func RelabelIf(send func(label string)) string {
	if label := "x"; label != "" {
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
	return ""
}

// RelabelParam is Relabel with the label a parameter, which the call
// stored before the go statement.
func RelabelParam(label string, send func(label string)) string {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		send(label) // reads the argument, or "y" if the store below came first
	}()
	label = "y" // races with the read
	wg.Wait()
	return label
}
