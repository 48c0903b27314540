package apache

import (
	"io"
	"sync"
)

// The RIGHT version of the same code, which precog vet must not report:
// lockedLog is the same writer with the lock Apache 2.0.49 added to the
// buffered log (buf->mutex).

// lockedLog is the buffered log with its lock.
type lockedLog struct {
	mu     sync.Mutex
	w      io.Writer
	outbuf []byte
	outcnt int
}

func (b *lockedLog) flushLocked() error {
	_, err := b.w.Write(b.outbuf[:b.outcnt])
	b.outcnt = 0
	return err
}

// writeLog appends one line under the lock.
func (b *lockedLog) writeLog(strs ...string) error {
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
	if n >= len(b.outbuf) {
		for _, str := range strs {
			if _, err := io.WriteString(b.w, str); err != nil {
				return err
			}
		}
		return nil
	}
	s := b.outbuf[b.outcnt:]
	for _, str := range strs {
		s = s[copy(s, str):]
	}
	b.outcnt += n
	return nil
}

// ServeLocked runs worker goroutines that log their requests to one
// locked log.
func ServeLocked(w io.Writer, size, workers int, requests []string) {
	log := &lockedLog{w: w, outbuf: make([]byte, size)}
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range requests {
				log.writeLog("GET ", r, " 200\n")
			}
		}()
	}
	wg.Wait()
	log.mu.Lock()
	log.flushLocked()
	log.mu.Unlock()
}
