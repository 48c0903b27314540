// Package pipeeofquiet: pipeeof's hand-off at the default confidence (the
// test runs without -all). A result set before the Close of an io.Pipe's
// writer and read after a call handed the reader is silent, its report
// resting on the call returning before the reader's end; set after the
// Close, it is reported.
package pipeeofquiet

import "io"

// Sink consumes a stream.
type Sink interface {
	Write(r io.Reader) error
}

func Stream(s Sink, data []byte) (int, error) {
	pr, pw := io.Pipe()
	var n int
	go func() {
		w, err := pw.Write(data)
		if err != nil {
			_ = pw.CloseWithError(err)
			return
		}
		n = w
		_ = pw.Close()
	}()
	if err := s.Write(pr); err != nil {
		return 0, err
	}
	return n, nil
}

func StoreAfterClose(s Sink, data []byte) (int, error) {
	pr, pw := io.Pipe()
	var n int
	go func() {
		w, _ := pw.Write(data)
		_ = pw.Close()
		n = w
	}()
	if err := s.Write(pr); err != nil {
		return 0, err
	}
	return n, nil // want `n may be read before it is set: func literal in StoreAfterClose sets it on the goroutine started at line \d+, which may not have run yet$`
}
