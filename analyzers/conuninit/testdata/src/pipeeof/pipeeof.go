// Package pipeeof: a goroutine writes a stream into an io.Pipe, sets a
// result, then closes the writer; the starter hands the reader to a call
// and reads the result after it returns (litefs's streamBackupDB, held-out
// rehearsal 48). A consumer that read the reader to its end saw the Close,
// which io.Pipe orders after the set; whether the call does so before it
// returns cannot be checked (an interface method here), so the report is
// of low confidence, shown only under -all with that assumption (the test
// runs with -all). The set after the Close, a read the call does not
// precede, a set only before CloseWithError (of an error or of one that
// may be nil), a reader handed to no call before the read (another
// goroutine reads it, or a wrapper holds it), and a writer handed on as
// an io.WriteCloser are reported at the default confidence.
package pipeeof

import (
	"bytes"
	"io"
)

// Sink consumes a stream.
type Sink interface {
	Write(r io.Reader) error
}

// CopySink reads the stream to its end.
type CopySink struct{ buf bytes.Buffer }

func (s *CopySink) Write(r io.Reader) error {
	_, err := io.Copy(&s.buf, r)
	return err
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
	return n, nil // want `n may be read before it is set: .* \(low confidence: it assumes that s\.Write returns before it has read pr to its end, which pw\.Close makes only after n is set\)$`
}

// fill writes data to w.
func fill(w io.Writer, data []byte) (int, error) { return w.Write(data) }

// Handed hands the writer to fill as an io.Writer, as litefs hands it to
// an encoder: fill is taken not to close it, which the report names.
func Handed(s Sink, data []byte) (int, error) {
	pr, pw := io.Pipe()
	var n int
	go func() {
		w, err := fill(pw, data)
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
	return n, nil // want `n may be read before it is set: .* \(low confidence: it assumes that s\.Write returns before it has read pr to its end, which pw\.Close makes only after n is set, or that code given pw as io\.Writer closes it\)$`
}

// StoreAfterClose sets n after the Close: a reader at the end has not
// seen the set.
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

// ReadBefore reads n before handing the reader on.
func ReadBefore(s Sink, data []byte) (int, error) {
	pr, pw := io.Pipe()
	var n int
	go func() {
		w, _ := pw.Write(data)
		n = w
		_ = pw.Close()
	}()
	got := n // want `n may be read before it is set: func literal in ReadBefore sets it on the goroutine started at line \d+, which may not have run yet$`
	if err := s.Write(pr); err != nil {
		return 0, err
	}
	return got, nil
}

// ReadOffPath reads n also where the reader was not handed on.
func ReadOffPath(s Sink, data []byte, send bool) (int, error) {
	pr, pw := io.Pipe()
	var n int
	go func() {
		w, _ := pw.Write(data)
		n = w
		_ = pw.Close()
	}()
	if send {
		if err := s.Write(pr); err != nil {
			return 0, err
		}
	}
	return n, nil // want `n may be read before it is set: func literal in ReadOffPath sets it on the goroutine started at line \d+, which may not have run yet$`
}

// ErrorPathOnly sets n only before CloseWithError of an error: a reader
// gets the error, not the end, and the plain Close follows no set.
func ErrorPathOnly(s Sink, data []byte) (int, error) {
	pr, pw := io.Pipe()
	var n int
	go func() {
		if _, err := pw.Write(data); err != nil {
			n = -1
			_ = pw.CloseWithError(err)
			return
		}
		_ = pw.Close()
	}()
	if err := s.Write(pr); err != nil {
		return 0, err
	}
	return n, nil // want `n may be read before it is set: func literal in ErrorPathOnly sets it on the goroutine started at line \d+, which may not have run yet$`
}

// MaybeNil closes with CloseWithError(err) before the set when err may
// be nil, which ends the stream as Close does.
func MaybeNil(s Sink, data []byte) (int, error) {
	pr, pw := io.Pipe()
	var n int
	go func() {
		w, err := pw.Write(data)
		if err == nil {
			n = w
		}
		_ = pw.CloseWithError(err)
	}()
	if err := s.Write(pr); err != nil {
		return 0, err
	}
	return n, nil // want `n may be read before it is set: func literal in MaybeNil sets it on the goroutine started at line \d+, which may not have run yet$`
}

// OtherReader hands the reader to another goroutine, and another reader
// to the call before the read.
func OtherReader(s, t Sink, data []byte, other io.Reader) (int, error) {
	pr, pw := io.Pipe()
	var n int
	go func() {
		w, _ := pw.Write(data)
		n = w
		_ = pw.Close()
	}()
	go t.Write(pr)
	if err := s.Write(other); err != nil {
		return 0, err
	}
	return n, nil // want `n may be read before it is set: func literal in OtherReader sets it on the goroutine started at line \d+, which may not have run yet$`
}

type wrapped struct{ r io.Reader }

func (w *wrapped) Read(p []byte) (int, error) { return w.r.Read(p) }

// wrap returns at once, holding r for a later read.
func wrap(r io.Reader) *wrapped { return &wrapped{r} }

// Wrapped hands the reader to a wrapper, which returns it unread.
func Wrapped(s Sink, data []byte) (int, error) {
	pr, pw := io.Pipe()
	var n int
	go func() {
		w, _ := pw.Write(data)
		n = w
		_ = pw.Close()
	}()
	wr := wrap(pr)
	got := n // want `n may be read before it is set: func literal in Wrapped sets it on the goroutine started at line \d+, which may not have run yet$`
	if err := s.Write(wr); err != nil {
		return 0, err
	}
	return got, nil
}

// finish may close w.
func finish(w io.WriteCloser, data []byte) {
	_, _ = w.Write(data)
}

// Closer hands the writer on as an io.WriteCloser, which the code given
// it may close before the set.
func Closer(s Sink, data []byte) (int, error) {
	pr, pw := io.Pipe()
	var n int
	go func() {
		finish(pw, data)
		n = len(data)
		_ = pw.Close()
	}()
	if err := s.Write(pr); err != nil {
		return 0, err
	}
	return n, nil // want `n may be read before it is set: func literal in Closer sets it on the goroutine started at line \d+, which may not have run yet$`
}
