package mysql

import (
	"fmt"
	"io"
	"sync"
)

// The RIGHT versions of the same code, which precog vet must not report:
// the running statement's text is set and cleared under the per-session
// lock (MySQL's LOCK_thd_data), which SHOW PROCESSLIST also holds across
// its check and its use; the current database is read once into a local,
// and only the checked local is dereferenced (the way MySQL copies the
// pointer before testing it).

// lockedTHD is a session whose shared fields are read safely.
type lockedTHD struct {
	id     int
	db     *string    // current database; written without a lock, read once
	dataMu sync.Mutex // LOCK_thd_data: guards query
	query  *string    // text of the running statement
}

// dispatch runs statements on the session's own goroutine.
func (thd *lockedTHD) dispatch(db string, queries []string) {
	thd.db = &db
	for _, q := range queries {
		thd.dataMu.Lock()
		thd.query = &q
		thd.dataMu.Unlock()

		thd.dataMu.Lock()
		thd.query = nil
		thd.dataMu.Unlock()
	}
	thd.db = nil
}

// show prints the session's row.
func (thd *lockedTHD) show(w io.Writer) {
	fmt.Fprintf(w, "%d", thd.id)
	if db := thd.db; db != nil {
		io.WriteString(w, "\t")
		io.WriteString(w, *db)
	}
	thd.dataMu.Lock()
	if thd.query != nil {
		io.WriteString(w, "\t")
		io.WriteString(w, *thd.query)
	}
	thd.dataMu.Unlock()
	io.WriteString(w, "\n")
}

// RunLocked serves one session while another shows it.
func RunLocked(w io.Writer, queries []string) {
	thd := &lockedTHD{id: 1}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		thd.dispatch("test", queries)
	}()
	go func() {
		defer wg.Done()
		thd.show(w)
	}()
	wg.Wait()
}
