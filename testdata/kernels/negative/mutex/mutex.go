// Package mutex is a negative control: the shapes of the con-null,
// con-closed, con-index and con-map kernels, with every access to the shared
// state under one mutex. No check may report anything here.
//
// Registry embeds its sync.Mutex and takes it with defer r.Unlock(); its
// helpers named ...Locked are only called with the lock held. Config guards
// its state with a sync.RWMutex: readers hold RLock, writers hold Lock, so a
// nil store (Lock) can never fall between a reader's check and its use
// (RLock). Why each shape is safe:
//   - con-null: r.current and r.onEnd are set to nil, checked and used only
//     inside critical sections of the same lock, with the check and the use
//     in one critical section (Registry.currentQueryLocked, Config.Version).
//   - con-closed: r.log is Reset and written under the lock, and its Bytes
//     are used before the lock is released (Flush).
//   - con-index: r.history is indexed with r.next under the lock.
//   - con-map: r.sessions and c.values are written under Lock, read and
//     iterated under Lock or RLock.
package mutex

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"sync"
)

// Session is one client session.
type Session struct {
	ID    int
	Query string
}

// Registry tracks the live sessions.
type Registry struct {
	sync.Mutex
	sessions map[int]*Session
	current  *Session       // the most recent session; nil once it ends
	onEnd    func(*Session) // end hook; nil after Shutdown
	history  []int          // ring of the last len(history) session ids
	next     int
	log      bytes.Buffer
}

// NewRegistry returns a registry remembering the last n session ids.
func NewRegistry(n int, onEnd func(*Session)) *Registry {
	return &Registry{sessions: make(map[int]*Session), history: make([]int, n), onEnd: onEnd}
}

// Begin registers s.
func (r *Registry) Begin(s *Session) {
	r.Lock()
	defer r.Unlock()
	r.sessions[s.ID] = s
	r.current = s
	r.recordLocked(s.ID)
	fmt.Fprintf(&r.log, "begin %d\n", s.ID)
}

func (r *Registry) recordLocked(id int) {
	r.history[r.next] = id
	r.next = (r.next + 1) % len(r.history)
}

// End unregisters the session id.
func (r *Registry) End(id int) {
	r.Lock()
	defer r.Unlock()
	s, ok := r.sessions[id]
	if !ok {
		return
	}
	delete(r.sessions, id)
	if r.current == s {
		r.current = nil
	}
	if r.onEnd != nil {
		r.onEnd(s)
	}
	fmt.Fprintf(&r.log, "end %d\n", id)
}

// CurrentQuery returns the query of the most recent session.
func (r *Registry) CurrentQuery() string {
	r.Lock()
	defer r.Unlock()
	return r.currentQueryLocked()
}

func (r *Registry) currentQueryLocked() string {
	if r.current == nil {
		return ""
	}
	return r.current.Query
}

// Recent returns the last session ids, oldest first.
func (r *Registry) Recent() []int {
	r.Lock()
	defer r.Unlock()
	out := make([]int, 0, len(r.history))
	for i := range len(r.history) {
		out = append(out, r.history[(r.next+i)%len(r.history)])
	}
	return out
}

// Flush writes the buffered log and empties it.
func (r *Registry) Flush(w io.Writer) error {
	r.Lock()
	defer r.Unlock()
	_, err := w.Write(r.log.Bytes())
	r.log.Reset()
	return err
}

// Shutdown drops the end hook.
func (r *Registry) Shutdown() {
	r.Lock()
	r.onEnd = nil
	r.Unlock()
}

type snapshot struct {
	version int
	keys    []string
}

// Config is a key-value configuration with a lazily built snapshot.
type Config struct {
	mu      sync.RWMutex
	values  map[string]string
	version int
	current *snapshot // nil when stale
}

// Set stores a value and invalidates the snapshot.
func (c *Config) Set(k, v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.values[k] = v
	c.version++
	c.current = nil
}

// Get returns the value of k.
func (c *Config) Get(k string) string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.values[k]
}

// Version returns the version of the current snapshot, or -1.
func (c *Config) Version() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.current != nil {
		return c.current.version
	}
	return -1
}

// Keys returns the sorted keys, building the snapshot if it is stale.
func (c *Config) Keys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current == nil {
		s := &snapshot{version: c.version}
		for k := range c.values {
			s.keys = append(s.keys, k)
		}
		sort.Strings(s.keys)
		c.current = s
	}
	return c.current.keys
}

// Dump writes every key and value.
func (c *Config) Dump(w io.Writer) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for k, v := range c.values {
		fmt.Fprintf(w, "%s=%s\n", k, v)
	}
}

// Run exercises a Registry and a Config from several goroutines.
func Run(w io.Writer, n int) {
	r := NewRegistry(8, func(s *Session) {})
	c := &Config{values: make(map[string]string)}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(3)
		go func() {
			defer wg.Done()
			r.Begin(&Session{ID: i, Query: fmt.Sprint("SELECT ", i)})
			c.Set(fmt.Sprint("k", i), r.CurrentQuery())
			r.End(i)
		}()
		go func() {
			defer wg.Done()
			_ = r.Recent()
			_ = c.Version()
			_ = c.Keys()
			_ = c.Get("k0")
		}()
		go func() {
			defer wg.Done()
			r.Flush(io.Discard)
			c.Dump(io.Discard)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.Shutdown()
	}()
	wg.Wait()
	r.Flush(w)
}
