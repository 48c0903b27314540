// Package apache is the Apache-2 kernel (ConMem, conmem.txt Fig. 9;
// Apache 2.0.45 mod_log_config, ap_buffered_log_writer): a Con-Overflow
// atomicity violation.
//
// A buffered access log is shared by the request goroutines of a child. A
// writer gets the fields of one log line, checks that they fit
// (buf.outcnt + n <= len(buf.outbuf)), flushing first if they do not, then
// copies them to buf.outbuf[buf.outcnt:buf.outcnt+n] (the memcpy to
// &buf->outbuf[buf->outcnt]) and adds n to buf.outcnt. Nothing locks the
// buffer, so another writer can move outcnt between the check and the copy.
//
// Crashing interleaving (S1 and S2 in Fig. 9), with the test's 48-byte
// buffer and lines of 30 (A) and 31 (B) bytes:
//
//	request goroutine A                request goroutine B
//	S1 outcnt(0)+30 <= 48
//	                                   S1 outcnt(0)+31 <= 48
//	                                   S2 copy to outbuf[0:31]
//	                                   W  outcnt += 31   (31)
//	S2 s := outbuf[31:61]
//	panic: runtime error: slice bounds out of range [:61] with capacity 48
//
// The test's normal schedule hides the bug: the second request arrives a
// 20 ms after the first, when the first has long finished its write;
// the second then finds the buffer too full and flushes it first.
package apache

import "io"

// bufferedLog is buffered_log: one per log file per child process.
type bufferedLog struct {
	w      io.Writer
	outbuf []byte
	outcnt int
}

func newBufferedLog(w io.Writer, size int) *bufferedLog {
	return &bufferedLog{w: w, outbuf: make([]byte, size)}
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
	s := b.outbuf[b.outcnt : b.outcnt+n] // S2 // want `may be out of range`
	for _, str := range strs {
		s = s[copy(s, str):]
	}
	b.outcnt += n // W
	return nil
}
