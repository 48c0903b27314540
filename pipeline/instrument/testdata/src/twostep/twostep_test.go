package twostep

// loop drives the table as a test does: set, then get, in a loop, in a
// _test.go file: never a two-step.
func loop(t *Table) { // want loop:`twostep.go:\d+ .*twostep.go:\d+$`
	for i := range 3 {
		t.Set(i)
		_ = t.Get()
	}
}
