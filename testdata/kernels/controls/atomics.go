package controls

import (
	"io"
	"sync/atomic"
)

// AtomicTHD is the MySQL session of package mysql with procInfo an
// atomic.Pointer: SHOW PROCESSLIST loads it once and dereferences only the
// checked local.
type AtomicTHD struct {
	procInfo atomic.Pointer[string]
}

// Dispatch runs one statement.
func (thd *AtomicTHD) Dispatch(query string, execute func(string)) {
	state := "executing"
	thd.procInfo.Store(&state)
	execute(query)
	thd.procInfo.Store(nil)
}

// ShowProcessList prints the session's row.
func (thd *AtomicTHD) ShowProcessList(w io.Writer) {
	io.WriteString(w, "1")
	if p := thd.procInfo.Load(); p != nil {
		io.WriteString(w, "\t")
		io.WriteString(w, *p)
	}
	io.WriteString(w, "\n")
}

// AtomicLog is a log of fixed-size records whose slot index comes from an
// atomic counter: each writer owns the slot it reserved.
type AtomicLog struct {
	next    atomic.Int64
	records [][]byte
}

// Append reserves a slot and writes rec to it; it reports false when the log
// is full.
func (l *AtomicLog) Append(rec []byte) bool {
	i := l.next.Add(1) - 1
	if i >= int64(len(l.records)) {
		return false
	}
	l.records[i] = rec
	return true
}
