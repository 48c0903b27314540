// Package publish is a negative control: every shared field is set before
// the go statements that start the goroutines reading it, and nothing writes
// it afterwards (the fixed shape of the Transmission kernel). No check may
// report anything here.
//
// Why each shape is safe:
//   - con-uninit: s.routes, s.fallback, s.logf, s.limits, s.tls and s.reqs
//     are written by NewServer and Start before the go statements; package
//     var mimeTypes is written by init, before any goroutine of the package
//     exists.
//   - con-null: no shared pointer, func, interface, map or channel location
//     is ever set to nil.
//   - con-map: the maps are only read once the workers run.
//   - con-index: s.limits is never written after the workers start.
//   - con-closed: s.reqs is closed by Serve, its only sender, after its last
//     send; results is closed after wg.Wait.
package publish

import (
	"fmt"
	"path"
	"strings"
	"sync"
)

// Handler serves one request path.
type Handler interface {
	Serve(p string) string
}

type static struct{ body string }

func (h static) Serve(p string) string { return h.body + " " + p }

type notFound struct{}

func (notFound) Serve(p string) string { return "404 " + p }

type tlsConfig struct {
	serverName string
	minVersion int
}

var mimeTypes map[string]string

func init() {
	mimeTypes = map[string]string{".html": "text/html", ".css": "text/css"}
}

// Server dispatches requests to handlers on worker goroutines.
type Server struct {
	routes   map[string]Handler
	fallback Handler
	logf     func(format string, args ...any)
	limits   []int // max path length per worker
	tls      *tlsConfig
	reqs     chan string
	wg       sync.WaitGroup
}

// NewServer returns a server with its routes.
func NewServer(routes map[string]Handler, logf func(string, ...any)) *Server {
	s := &Server{
		routes:   make(map[string]Handler, len(routes)+1),
		fallback: notFound{},
		logf:     logf,
		tls:      &tlsConfig{serverName: "example.org", minVersion: 13},
	}
	for p, h := range routes {
		s.routes[p] = h
	}
	s.routes["/healthz"] = static{body: "ok"}
	return s
}

// Start starts n workers sending their responses to out.
func (s *Server) Start(n int, out chan<- string) {
	s.limits = make([]int, n)
	for i := range s.limits {
		s.limits[i] = 64 << i
	}
	s.reqs = make(chan string)
	for i := 0; i < n; i++ {
		s.wg.Add(1)
		go s.worker(i, out)
	}
}

func (s *Server) worker(id int, out chan<- string) {
	defer s.wg.Done()
	for p := range s.reqs {
		if len(p) > s.limits[id] {
			s.logf("worker %d: path too long for %s", id, s.tls.serverName)
			continue
		}
		h, ok := s.routes[p]
		if !ok {
			h = s.fallback
		}
		out <- fmt.Sprintf("%s [%s]", h.Serve(p), mimeTypes[path.Ext(p)])
	}
}

// Serve starts n workers, feeds them paths and returns their responses.
func Serve(routes map[string]Handler, paths []string, n int) []string {
	s := NewServer(routes, func(string, ...any) {})
	results := make(chan string)
	s.Start(n, results)
	go func() {
		for _, p := range paths {
			s.reqs <- strings.TrimSpace(p)
		}
		close(s.reqs)
	}()
	go func() {
		s.wg.Wait()
		close(results)
	}()
	var out []string
	for r := range results {
		out = append(out, r)
	}
	return out
}
