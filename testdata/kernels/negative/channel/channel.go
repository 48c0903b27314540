// Package channel is a negative control: goroutines hand state over through
// channels. The writer writes, then sends or closes; the reader receives
// first, then reads. No check may report anything here.
//
// Why each shape is safe:
//   - con-uninit: NewSession starts eventLoop before setting h.band (as in
//     the Transmission kernel) but then closes h.ready; eventLoop receives
//     from h.ready before its first read of h.band.
//   - con-null: Close sets h.peer to nil only after receiving from
//     h.stopped, which eventLoop closes after its last use of h.peer.
//   - con-closed: in Render, jobs is closed by its only sender after its
//     last send, and results by a goroutine that first waits for every
//     sender; a worker never touches a buffer after sending it, and the
//     collector Resets and Puts it only after receiving it. h.stop is only
//     received from.
//   - con-map and con-index: NewIndex's goroutine builds the map, x.buf and
//     x.n, then closes x.built; Lookup receives from x.built before it reads
//     or writes any of them.
package channel

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"time"
)

// Bandwidth is the session's rate limiter.
type Bandwidth struct{ bytesPerPulse int }

type peer struct {
	addr string
	sent int
}

func (p *peer) send(n int) { p.sent += n }

// Session runs an event loop, as in the Transmission kernel, but publishes
// its bandwidth object through a channel.
type Session struct {
	band    *Bandwidth
	peer    *peer
	ready   chan struct{}
	stop    chan struct{}
	stopped chan struct{}
	pulses  int
}

// NewSession starts the event loop and then publishes h.band.
func NewSession(addr string) *Session {
	h := &Session{
		peer:    &peer{addr: addr},
		ready:   make(chan struct{}),
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	go h.eventLoop()
	h.band = &Bandwidth{bytesPerPulse: 16 << 10}
	close(h.ready)
	return h
}

func (h *Session) eventLoop() {
	defer close(h.stopped)
	<-h.ready
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		h.peer.send(h.band.bytesPerPulse)
		h.pulses++
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
	}
}

// Close stops the event loop and drops the peer.
func (h *Session) Close() int {
	close(h.stop)
	<-h.stopped
	sent := h.peer.sent
	h.peer = nil
	return sent + h.pulses
}

// Index maps words to their positions; it is built once in the background.
type Index struct {
	words map[string]int
	buf   []byte
	n     int
	built chan struct{}
}

// NewIndex builds the index of words on another goroutine.
func NewIndex(words []string) *Index {
	x := &Index{built: make(chan struct{})}
	go func() {
		m := make(map[string]int, len(words))
		for i, w := range words {
			m[w] = i
			x.buf = append(x.buf, w...)
		}
		x.words = m
		x.n = len(x.buf)
		close(x.built)
	}()
	return x
}

// Lookup waits for the index, then returns the position of w and the text.
func (x *Index) Lookup(w string) (int, string) {
	<-x.built
	i, ok := x.words[w]
	if !ok {
		i = -1
		x.words[w] = i
	}
	return i, string(x.buf[:x.n])
}

// Render formats items on worker goroutines; the collector writes them.
func Render(w io.Writer, items []string, workers int) {
	var pool = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	jobs := make(chan string)
	results := make(chan *bytes.Buffer)
	go func() {
		for _, it := range items {
			jobs <- it
		}
		close(jobs)
	}()
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range jobs {
				buf := pool.Get().(*bytes.Buffer)
				fmt.Fprintf(buf, "<li>%s</li>\n", it)
				results <- buf
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	for buf := range results {
		w.Write(buf.Bytes())
		buf.Reset()
		pool.Put(buf)
	}
}
