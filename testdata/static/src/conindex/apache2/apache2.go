// Package apache2 is the Apache-2 kernel (ConMem, conmem.txt Fig. 9; Apache
// 2.0.45 mod_log_config, ap_buffered_log_writer): a Con-Overflow atomicity
// violation.
//
// Buffered access logs are shared by all request goroutines of a child. A
// writer checks that the line fits (buf.outcnt + len(p) <= len(buf.outbuf)),
// flushing first if it does not, then copies the line to
// buf.outbuf[buf.outcnt:] and adds its length to buf.outcnt. Nothing locks
// the buffer, so another writer can advance outcnt between the check and the
// copy, or two writers can both pass the check and both add.
//
// Crashing interleaving (S1 and S2 in Fig. 9):
//
//	request goroutine A                 request goroutine B
//	S1 outcnt+len(p) <= len(outbuf)     S1 outcnt+len(p) <= len(outbuf)
//	S2 copy(outbuf[outcnt:], p)
//	   outcnt += len(p)
//	                                    S2 copy(outbuf[outcnt:], p)  (truncated)
//	                                       outcnt += len(p)  (now > len(outbuf))
//	next write or flush: outbuf[outcnt:] or outbuf[:outcnt]
//	panic: runtime error: slice bounds out of range [4200:4096]
//
// Before the panic the log is silently corrupted (copy truncates). The
// normal schedule hides the bug: lines are short and the buffer fills
// rarely, so the window between the check and the copy is almost never hit.
//
// RIGHT version in this file: lockedLog is the same writer with the lock
// Apache 2.0.49 added to the buffered log (buf->mutex).
package apache2

import (
	"io"
	"sync"
)

const logBufSize = 4096

// bufferedLog is buffered_log: one per log file per child process.
type bufferedLog struct {
	w      io.Writer
	outbuf []byte
	outcnt int
}

func newBufferedLog(w io.Writer) *bufferedLog {
	return &bufferedLog{w: w, outbuf: make([]byte, logBufSize)}
}

func (b *bufferedLog) flush() error {
	_, err := b.w.Write(b.outbuf[:b.outcnt]) // want `may be out of range`
	b.outcnt = 0
	return err
}

// Write is ap_buffered_log_writer.
func (b *bufferedLog) Write(p []byte) (int, error) {
	if b.outcnt+len(p) > len(b.outbuf) { // S1
		if err := b.flush(); err != nil {
			return 0, err
		}
	}
	if len(p) >= len(b.outbuf) {
		return b.w.Write(p)
	}
	copy(b.outbuf[b.outcnt:], p) // want `may be out of range`
	b.outcnt += len(p)
	return len(p), nil
}

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

// Write appends p under the lock.
func (b *lockedLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.outcnt+len(p) > len(b.outbuf) {
		if err := b.flushLocked(); err != nil {
			return 0, err
		}
	}
	if len(p) >= len(b.outbuf) {
		return b.w.Write(p)
	}
	copy(b.outbuf[b.outcnt:], p)
	b.outcnt += len(p)
	return len(p), nil
}

// Serve runs the worker goroutines of one child, each logging its requests
// to the access log (buggy) and the error log (locked).
func Serve(access, errors io.Writer, workers int, requests []string) {
	accessLog := newBufferedLog(access)
	errorLog := &lockedLog{w: errors, outbuf: make([]byte, logBufSize)}
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range requests {
				accessLog.Write([]byte("GET " + r + " 200\n"))
				if len(r) > 64 {
					errorLog.Write([]byte("request line too long: " + r + "\n"))
				}
			}
		}()
	}
	wg.Wait()
	accessLog.flush()
	errorLog.mu.Lock()
	errorLog.flushLocked()
	errorLog.mu.Unlock()
}
