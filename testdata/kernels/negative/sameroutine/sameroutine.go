// Package sameroutine is a negative control: a nil store and the dereference
// that follows it, a Close and a later use, a map write inside a range over
// the map, all happen in one goroutine, in program order. Other goroutines
// talk to it only through channels. No check may report anything here.
//
// Loop's fields are touched only by the goroutine running l.run (after
// NewLoop set them, before the go statement). Why each shape is safe:
//   - con-null: l.cur and l.conn are set to nil and dereferenced by run
//     alone; run re-dials before it uses l.conn again.
//   - con-closed: l.conn is closed and dropped by run before run dials a new
//     one; l.log is Reset and written by run alone; run deletes from l.cache
//     while ranging over it, which Go allows in one goroutine.
//   - con-index: l.hist is indexed with l.pos by run alone.
//   - con-map: l.cache is written by run alone.
package sameroutine

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

type conn struct {
	addr   string
	closed bool
	calls  int
}

func dial(addr string) *conn { return &conn{addr: addr} }

func (c *conn) roundTrip(path string) (string, error) {
	if c.closed {
		return "", errors.New("use of closed connection")
	}
	c.calls++
	if c.calls%5 == 0 {
		return "", errors.New("connection reset")
	}
	return "200 " + c.addr + path, nil
}

// Close closes the connection.
func (c *conn) Close() error {
	c.closed = true
	return nil
}

type request struct {
	path  string
	reply chan string
}

// Loop serves requests on a single goroutine.
type Loop struct {
	addr  string
	reqs  chan *request
	done  chan struct{}
	cur   *request // the request being served; nil between requests
	conn  *conn    // nil after an error until the next dial
	cache map[string]string
	hist  []string
	pos   int
	log   bytes.Buffer
}

// NewLoop returns a loop that talks to addr; it is not started.
func NewLoop(addr string) *Loop {
	return &Loop{
		addr:  addr,
		reqs:  make(chan *request),
		done:  make(chan struct{}),
		cache: make(map[string]string),
		hist:  make([]string, 4),
	}
}

func (l *Loop) run() {
	defer close(l.done)
	for r := range l.reqs {
		l.cur = r
		resp, ok := l.cache[l.cur.path]
		if !ok {
			if l.conn == nil {
				l.conn = dial(l.addr)
			}
			var err error
			resp, err = l.conn.roundTrip(l.cur.path)
			if err != nil {
				l.conn.Close()
				l.conn = nil
				resp = "502 " + err.Error()
			}
		}
		for k := range l.cache {
			if len(l.cache) >= 8 {
				delete(l.cache, k)
			}
		}
		l.cache[l.cur.path] = resp
		l.hist[l.pos] = l.cur.path
		l.pos = (l.pos + 1) % len(l.hist)
		fmt.Fprintf(&l.log, "%s %s\n", l.cur.path, resp)
		if l.log.Len() > 1024 {
			l.log.Reset()
		}
		l.cur.reply <- resp
		l.cur = nil
	}
}

// Do runs the loop over paths, one request at a time, and stops it.
func Do(addr string, paths []string) []string {
	l := NewLoop(addr)
	go l.run()
	var out []string
	for _, p := range paths {
		r := &request{path: strings.TrimSpace(p), reply: make(chan string)}
		l.reqs <- r
		out = append(out, <-r.reply)
	}
	close(l.reqs)
	<-l.done
	return out
}
