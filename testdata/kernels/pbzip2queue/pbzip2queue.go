// Package pbzip2queue is the PBZIP2-2 kernel (ConMem, conmem.txt
// Fig. 8; PBZIP2 0.9.4): a Con-Dangling order violation.
//
// In PBZIP2 the producer side deletes the shared FIFO while a consumer still
// holds a pointer to it. In Go the FIFO's output side is a channel:
// consumers send compressed blocks on q.out, the file writer receives them,
// and the producer side closes q.out as soon as it has read the whole input,
// instead of after the consumers have returned.
//
// Crashing interleaving (S1 and S2 in Fig. 8):
//
//	main goroutine (producer)         consumer goroutine
//	q.in <- the last block            b := <-q.in
//	read EOF, close(q.in)
//	S1 close(q.out)
//	                                  S2 q.out <- compress(b)
//	                                  panic: send on closed channel
//
// The test's normal schedule hides the bug: the input comes from a slow disk,
// and compressing a block is much faster than the read that finds EOF, so
// the consumer has sent its block before main closes q.out.
package pbzip2queue

import (
	"io"
	"sync"
)

type block struct {
	seq  int
	data []byte
}

// fifo connects the producer, the consumers and the file writer.
type fifo struct {
	in  chan block // producer -> consumers
	out chan block // consumers -> file writer
}

func (q *fifo) produce(r io.Reader, blockSize int) error {
	defer close(q.in)
	for seq := 0; ; seq++ {
		buf := make([]byte, blockSize)
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			q.in <- block{seq: seq, data: buf[:n]}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (q *fifo) consumer() {
	for b := range q.in {
		q.out <- block{seq: b.seq, data: compress(b.data)} // S2 // want `send on closed channel`
	}
}

// compress is a run-length encoder standing in for bzip2: each run of one
// byte becomes the pair (length, byte).
func compress(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		j := i + 1
		for j < len(b) && b[j] == b[i] && j-i < 255 {
			j++
		}
		out = append(out, byte(j-i), b[i])
		i = j
	}
	return out
}

func (q *fifo) fileWriter(w io.Writer, done chan<- int64) {
	var n int64
	for b := range q.out {
		m, _ := w.Write(b.data)
		n += int64(m)
	}
	done <- n
}

// Compress is PBZIP2's main: it reads r in blocks and writes the compressed
// blocks to w.
func Compress(w io.Writer, r io.Reader, blockSize, workers int) (int64, error) {
	q := &fifo{
		in:  make(chan block),
		out: make(chan block, workers),
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

	err := q.produce(r, blockSize)
	close(q.out) // S1: the consumers may still be sending
	n := <-written
	consumers.Wait()
	return n, err
}
