package controls

import (
	"io"
	"sync"
)

// MutexTHD is the MySQL session of package mysql with procInfo guarded by a
// per-session lock (LOCK_thd_data): the nil store and SHOW PROCESSLIST's
// check and use are each in one critical section.
type MutexTHD struct {
	id       int
	mu       sync.Mutex
	procInfo *string
}

// Dispatch runs one statement.
func (thd *MutexTHD) Dispatch(query string, execute func(string)) {
	state := "executing"
	thd.mu.Lock()
	thd.procInfo = &state
	thd.mu.Unlock()
	execute(query)
	thd.mu.Lock()
	thd.procInfo = nil
	thd.mu.Unlock()
}

// ShowProcessList prints the session's row.
func (thd *MutexTHD) ShowProcessList(w io.Writer) {
	thd.mu.Lock()
	defer thd.mu.Unlock()
	io.WriteString(w, "1")
	if thd.procInfo != nil {
		io.WriteString(w, "\t")
		io.WriteString(w, *thd.procInfo)
	}
	io.WriteString(w, "\n")
}

// MutexResolver is the resolver of package mapwrites with the cache store
// under the write lock.
type MutexResolver struct {
	lookup func(string) []string
	mu     sync.RWMutex
	cache  map[string][]string
}

// Resolve returns the addresses of host.
func (r *MutexResolver) Resolve(host string) []string {
	r.mu.RLock()
	addrs, ok := r.cache[host]
	r.mu.RUnlock()
	if ok {
		return addrs
	}
	addrs = r.lookup(host)
	r.mu.Lock()
	r.cache[host] = addrs
	r.mu.Unlock()
	return addrs
}

// MutexLog is the buffered log of package apache with its lock (Apache
// 2.0.49's buf->mutex): check, copy and count in one critical section.
type MutexLog struct {
	mu     sync.Mutex
	w      io.Writer
	outbuf []byte
	outcnt int
}

// WriteLog appends one line.
func (b *MutexLog) WriteLog(strs ...string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, str := range strs {
		n += len(str)
	}
	if b.outcnt+n > len(b.outbuf) {
		if err := b.flushLocked(); err != nil {
			return err
		}
	}
	s := b.outbuf[b.outcnt : b.outcnt+n]
	for _, str := range strs {
		s = s[copy(s, str):]
	}
	b.outcnt += n
	return nil
}

// Flush writes the buffered lines.
func (b *MutexLog) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *MutexLog) flushLocked() error {
	_, err := b.w.Write(b.outbuf[:b.outcnt])
	b.outcnt = 0
	return err
}
