// Package testhook: a package variable that holds a hook for tests, read
// by the package's goroutines with a check before the call. A test
// installs it and clears it when it returns; whether a goroutine of the
// package still runs then is up to the test (which usually waits for
// them), so the diagnostic would assume the test's timing: low
// confidence, shown only under -all. The package's own code clearing a
// hook that its goroutines call is reported.
package testhook

var hookQuery func() // for tests

var onClose func() // set by Open, cleared by Close

type DB struct{ n int }

func (db *DB) Query() {
	go db.run()
}

func (db *DB) run() {
	if hookQuery != nil {
		hookQuery()
	}
	db.n++
}

func Open(f func()) *DB {
	onClose = f
	db := &DB{}
	go db.watch()
	return db
}

func (db *DB) watch() {
	if onClose != nil {
		onClose() // want `onClose may be nil when called here`
	}
}

func (db *DB) Close() { onClose = nil }
