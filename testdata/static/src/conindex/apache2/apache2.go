// Package apache2 is the Apache-2 kernel (ConMem, conmem.txt Fig. 9; Apache
// 2.0.45 mod_log_config, ap_buffered_log_writer): a Con-Overflow atomicity
// violation.
//
// Buffered access logs are shared by all request goroutines of a child. A
// writer gets the fields of one log line, checks that they fit
// (buf.outcnt + n <= len(buf.outbuf)), flushing first if they do not, then
// copies them to buf.outbuf[buf.outcnt:] and adds n to buf.outcnt. Nothing
// locks the buffer, so two writers can both pass the check and both add, and
// outcnt ends up past the end of the buffer.
//
// Crashing interleaving (S1 and S2 in Fig. 9):
//
//	request goroutine A                request goroutine B
//	S1 outcnt(4000)+50 <= 4096
//	S2 s := outbuf[4000:]              S1 outcnt(4000)+90 <= 4096
//	   copy the fields to s            S2 s := outbuf[4000:], copy the fields
//	                                      outcnt += 90   (4090)
//	   outcnt += 50   (4140)
//	next writer: flush: outbuf[:outcnt]
//	panic: runtime error: slice bounds out of range [:4140] with capacity 4096
//
// Before the panic the log is silently corrupted: B's line overwrote A's. The
// normal schedule hides the bug: the buffer fills rarely, and two writers
// must be between S1 and the final add at the same time, just then.
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

// writeLog is ap_buffered_log_writer: strs are the fields of one line.
func (b *bufferedLog) writeLog(strs ...string) error {
	n := 0
	for _, str := range strs {
		n += len(str)
	}
	if b.outcnt+n > len(b.outbuf) { // S1
		if err := b.flush(); err != nil {
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
	s := b.outbuf[b.outcnt:] // want `may be out of range`
	for _, str := range strs {
		s = s[copy(s, str):]
	}
	b.outcnt += n
	return nil
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
				accessLog.writeLog("GET ", r, " 200\n")
				if len(r) > 64 {
					errorLog.writeLog("request line too long: ", r, "\n")
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
