package pbzip2queue

import "sync"

// The RIGHT versions of the same code, which precog vet must not report:
// the input channel is closed by the producer, its only sender, after its
// last send; the error channel is closed after the consumers are joined.

// joinedFIFO connects a producer and consumers that report errors.
type joinedFIFO struct {
	in   chan []byte // producer -> consumers
	errs chan error  // consumers -> main, at most one per consumer
}

func (q *joinedFIFO) produce(blocks [][]byte) {
	for _, b := range blocks {
		q.in <- b
	}
	close(q.in)
}

func (q *joinedFIFO) consumer(check func([]byte) error) {
	for b := range q.in {
		if err := check(b); err != nil {
			q.errs <- err
			return
		}
	}
}

// CheckAll runs check on every block with the given number of workers and
// returns the first error.
func CheckAll(blocks [][]byte, workers int, check func([]byte) error) error {
	q := &joinedFIFO{in: make(chan []byte), errs: make(chan error, workers)}
	var consumers sync.WaitGroup
	for i := 0; i < workers; i++ {
		consumers.Add(1)
		go func() {
			defer consumers.Done()
			q.consumer(check)
		}()
	}
	go q.produce(blocks)
	consumers.Wait()
	close(q.errs)
	for err := range q.errs {
		return err
	}
	return nil
}
