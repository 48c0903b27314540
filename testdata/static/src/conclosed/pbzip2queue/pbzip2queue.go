// Package pbzip2queue is the PBZIP2-2 kernel (ConMem, conmem.txt Fig. 8;
// PBZIP2 0.9.4): a Con-Dangling order violation.
//
// In PBZIP2 the producer side deletes the shared FIFO while a consumer still
// holds a pointer to it. In Go the FIFO's output side is a channel: consumers
// send compressed blocks on q.out, the file writer receives them, and the
// producer side closes q.out as soon as it has queued the last input block,
// instead of after the consumers have returned.
//
// Crashing interleaving (S1 and S2 in Fig. 8):
//
//	main goroutine (producer)         consumer goroutine
//	q.produce(data)                   b := <-q.in (the last block)
//	S1 close(q.out)
//	                                  S2 q.out <- compress(b)
//	                                  panic: send on closed channel
//
// The normal schedule hides the bug when reading a block is slower than
// compressing it (a slow disk): the consumers are idle on q.in when the
// producer finishes. With input already in memory, as here, it shows often.
//
// RIGHT versions in this file: q.in is closed by the producer, its only
// sender, after its last send; q.errs is closed after consumers.Wait().
package pbzip2queue

import (
	"bytes"
	"compress/flate"
	"io"
	"sync"
)

type block struct {
	seq  int
	data []byte
}

// fifo connects the producer, the consumers and the file writer.
type fifo struct {
	in   chan block // producer -> consumers
	out  chan block // consumers -> file writer
	errs chan error // consumers -> main, at most one per consumer
}

func (q *fifo) produce(data []byte, blockSize int) {
	for seq, off := 0, 0; off < len(data); seq, off = seq+1, off+blockSize {
		q.in <- block{seq: seq, data: data[off:min(off+blockSize, len(data))]}
	}
	close(q.in)
}

func (q *fifo) consumer() {
	for b := range q.in {
		var buf bytes.Buffer
		zw, err := flate.NewWriter(&buf, flate.BestSpeed)
		if err == nil {
			_, err = zw.Write(b.data)
		}
		if err == nil {
			err = zw.Close()
		}
		if err != nil {
			q.errs <- err
			return
		}
		q.out <- block{seq: b.seq, data: buf.Bytes()} // want `send on closed channel`
	}
}

func (q *fifo) fileWriter(w io.Writer, done chan<- int64) {
	var n int64
	for b := range q.out {
		m, _ := w.Write(b.data)
		n += int64(m)
	}
	done <- n
}

// Compress is PBZIP2's main.
func Compress(w io.Writer, data []byte, blockSize, workers int) (int64, error) {
	q := &fifo{
		in:   make(chan block),
		out:  make(chan block, workers),
		errs: make(chan error, workers),
	}
	var consumers sync.WaitGroup
	for i := 0; i < workers; i++ {
		consumers.Add(1)
		go func() {
			defer consumers.Done()
			q.consumer()
		}()
	}
	written := make(chan int64)
	go q.fileWriter(w, written)

	q.produce(data, blockSize)
	close(q.out) // S1: the consumers may still be sending
	n := <-written

	consumers.Wait()
	close(q.errs)
	for err := range q.errs {
		return n, err
	}
	return n, nil
}
