// Package local is a negative control: many goroutines run the same code, but
// each on objects it allocated or was given for itself alone. No check may
// report anything here, although the same fields are written and read by
// every worker goroutine.
//
// Pool.Run allocates one worker per go statement in a loop (go w.run()); a
// worker's fields are touched only by its own goroutine after the go
// statement; Run only receives from w.out. Why each shape is safe:
//   - con-null: w.cur is set to nil and dereferenced only by w's goroutine,
//     and each job is set before it is used.
//   - con-map: w.seen is written only by w's goroutine; wordCount's map is a
//     local of each goroutine.
//   - con-closed and con-index: w.buf is truncated (w.buf = w.buf[:0]) and
//     sliced with w.n only by w's goroutine; w.out is closed by w's
//     goroutine, its only sender.
//   - con-uninit: w.id, w.in and w.out are set before go w.run().
package local

import (
	"strings"
	"sync"
)

type job struct {
	id   int
	text string
}

type worker struct {
	id   int
	in   <-chan job
	out  chan string
	cur  *job
	seen map[string]int
	buf  []byte
	n    int
}

func (w *worker) run() {
	defer close(w.out)
	w.seen = make(map[string]int)
	for j := range w.in {
		w.cur = &j
		w.buf = w.buf[:0]
		w.buf = append(w.buf, strings.ToUpper(w.cur.text)...)
		w.n = len(w.buf) / 2
		w.seen[w.cur.text]++
		if w.seen[w.cur.text] == 1 {
			w.out <- string(w.buf[:w.n])
		}
		w.cur = nil
	}
}

// Pool runs one worker per input channel.
type Pool struct {
	workers []*worker
}

// Run starts one worker per job list and collects their output.
func (p *Pool) Run(lists [][]job) []string {
	for i, jobs := range lists {
		in := make(chan job, len(jobs))
		for _, j := range jobs {
			in <- j
		}
		close(in)
		w := &worker{id: i, in: in, out: make(chan string, len(jobs))}
		p.workers = append(p.workers, w)
		go w.run()
	}
	var res []string
	for _, w := range p.workers {
		for s := range w.out {
			res = append(res, s)
		}
	}
	return res
}

func wordCount(text string) map[string]int {
	m := make(map[string]int)
	for _, f := range strings.Fields(text) {
		m[f]++
	}
	return m
}

// CountAll counts the words of each text on its own goroutine.
func CountAll(texts []string) []map[string]int {
	out := make([]map[string]int, len(texts))
	var wg sync.WaitGroup
	for i, t := range texts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts := wordCount(t)
			for w := range counts {
				if len(w) < 2 {
					delete(counts, w)
				}
			}
			out[i] = counts
		}()
	}
	wg.Wait()
	return out
}
