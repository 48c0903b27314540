// Package axel is the execution-suppression paper's prozilla/axel shape
// (execution-suppression.txt §4, Tables I and II: an unchecked sscanf or
// strncpy overflows a stack buffer; axel took 1+2+0+0 executions): a
// single goroutine's corrupted index, far from its cause, that takes two
// suppression iterations to trace back.
//
// Go checks bounds, so the overflow cannot smash memory; the analog keeps
// the paper's propagation. A download connection parses the server's
// reply: parseStatus takes the header length the server announces and
// stores it without checking it against the bytes received (S1, the
// unchecked sscanf); locateBody, in another function, derives the body's
// offset from it (S2); two calls later firstByte indexes the reply with
// that offset (S3) and header slices it with the length itself (S4).
//
// A reply whose announced length exceeds the reply panics at S3:
//
//	S1 c.hdrLen = n          (100, from "HTTP/1.1 206 100": the reply is 24 bytes)
//	S2 c.bodyOff = c.hdrLen + 2
//	S3 c.buf[c.bodyOff]
//	panic: runtime error: index out of range [102] with length 24
//
// No concurrency is involved: one goroutine, every run (20 of 20 runs of go
// test -count=1 fail).
//
// Root cause (explain file): the unchecked store S1. Execution suppression
// (the paper's axel): S3's index c.bodyOff was last defined at S2 (one
// goroutine: no race, no violation), so S2 is suppressed with what depends
// on it (S3); the run goes on and panics at S4, slicing with c.hdrLen,
// last defined at S1; suppressing S1 too leaves no failure, so S1 is the
// answer: 1 original and 2 suppression executions. S2, the definition of
// the first crash's index, is not the root cause: it computes correctly
// from a wrong input. The test asserts only that Fetch does not crash: an
// assertion that Fetch refuses the reply would fail again once both
// crashes are suppressed (Fetch returns no error, control-dependent on
// nothing suppressed), a failure that reveals the missing check but no
// corrupted value.
package axel

import (
	"errors"
	"strconv"
	"strings"
)

// Conn is a connection of a download.
type Conn struct {
	buf     []byte // the reply received
	hdrLen  int    // the header's length, as the server announced it
	bodyOff int    // where the body starts
}

// Fetch parses reply and returns its header and the first byte of its
// body.
func Fetch(reply string) (header string, first byte, err error) {
	c := &Conn{buf: []byte(reply)}
	if err := c.parseStatus(); err != nil {
		return "", 0, err
	}
	c.locateBody()
	first = c.firstByte()
	return c.header(), first, nil
}

// parseStatus reads the status line, "HTTP/1.1 206 <header length>".
func (c *Conn) parseStatus() error {
	line, _, _ := strings.Cut(string(c.buf), "\r\n")
	f := strings.Fields(line)
	if len(f) != 3 {
		return errors.New("bad status line " + strconv.Quote(line))
	}
	n, err := strconv.Atoi(f[2])
	if err != nil || n < 0 {
		return errors.New("bad header length " + strconv.Quote(f[2]))
	}
	c.hdrLen = n // S1: the bug: not checked against len(c.buf)
	return nil
}

// locateBody finds the body: after the header and its blank line.
func (c *Conn) locateBody() {
	c.bodyOff = c.hdrLen + 2 // S2
}

// firstByte is the first byte of the body.
func (c *Conn) firstByte() byte {
	return c.buf[c.bodyOff] // S3: the first crash
}

// header is the header.
func (c *Conn) header() string {
	return string(c.buf[:c.hdrLen]) // S4: the second
}
