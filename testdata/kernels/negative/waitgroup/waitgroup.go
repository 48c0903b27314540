//go:build go1.25

// Package waitgroup is a negative control: every write made by a goroutine is
// read by the starter only after wg.Wait has returned, and every Add comes
// before the go statement it counts (or is done by wg.Go). No check may
// report anything here.
//
// Why each shape is safe:
//   - con-uninit: Crawl reads cr.pages, cr.index, cr.summary, cr.buf and
//     cr.n, all written by goroutines, only after the Wait that joins them.
//   - con-null: cr.client is dereferenced by the fetchers and set to nil by
//     Close, which Crawl calls after the fetchers are joined.
//   - Done/Add: wg.Add(len(paths)) precedes the loop of go statements;
//     side.Go counts its function before starting it.
//   - con-closed: found is closed by a goroutine that first waits for every
//     sender (the usual wg.Wait(); close(ch) idiom).
//   - con-index: cr.buf[:cr.n] is sliced after the goroutine that wrote both
//     is joined; fetchers write distinct elements cr.pages[i].
//   - con-map: cr.index is built by one goroutine and used by Crawl after
//     the join.
package waitgroup

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

type client struct {
	base     string
	requests atomic.Int64
}

func (c *client) get(path string) (string, error) {
	c.requests.Add(1)
	return "<html>" + c.base + path + "</html>", nil
}

type page struct {
	path string
	body string
	err  error
}

type summary struct {
	pages, bytes int
}

// Crawler fetches pages in parallel.
type Crawler struct {
	client  *client
	pages   []page
	index   map[string]int
	summary *summary
	buf     []byte
	n       int
}

// NewCrawler returns a crawler for the site at base.
func NewCrawler(base string) *Crawler {
	return &Crawler{client: &client{base: base}}
}

// Crawl fetches paths and returns the sorted paths of pages mentioning word.
func (cr *Crawler) Crawl(paths []string, word string) ([]string, string, int) {
	cr.pages = make([]page, len(paths))
	var wg sync.WaitGroup
	wg.Add(len(paths))
	for i, p := range paths {
		go func() {
			defer wg.Done()
			body, err := cr.client.get(p)
			cr.pages[i] = page{path: p, body: body, err: err}
		}()
	}
	wg.Wait()

	var side sync.WaitGroup
	side.Go(func() {
		cr.index = make(map[string]int, len(cr.pages))
		for i, pg := range cr.pages {
			cr.index[pg.path] = i
			cr.buf = append(cr.buf, pg.path...)
		}
		cr.n = len(cr.buf)
	})
	side.Go(func() {
		s := &summary{}
		for _, pg := range cr.pages {
			s.pages++
			s.bytes += len(pg.body)
		}
		cr.summary = s
	})
	side.Wait()

	found := make(chan string)
	var search sync.WaitGroup
	for _, pg := range cr.pages {
		search.Add(1)
		go func() {
			defer search.Done()
			if strings.Contains(pg.body, word) {
				found <- pg.path
			}
		}()
	}
	go func() {
		search.Wait()
		close(found)
	}()
	var hits []string
	for p := range found {
		hits = append(hits, p)
	}
	sort.Slice(hits, func(a, b int) bool { return cr.index[hits[a]] < cr.index[hits[b]] })
	delete(cr.index, "")

	cr.Close()
	return hits, string(cr.buf[:cr.n]), cr.summary.bytes
}

// Close releases the client.
func (cr *Crawler) Close() {
	cr.client = nil
}
