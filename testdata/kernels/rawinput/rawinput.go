// Package rawinput is a negative case for precog explain: a failing test
// whose corrupted value comes from outside the program, so that no
// statement of it is the root cause (execution-suppression.txt §2.1: the
// approach looks for the statement that first corrupts memory; §3: a
// failure may depend on "data read from an input file", which the paper's
// runs did not need to record).
//
// An image decoder reads a 4-byte header straight into a buffer (a read
// system call fills it) and picks the decoder for the header's version
// byte from a table, without checking the version against the table:
//
//	io.ReadFull(f, hdr[:])    the file's 4th byte, 7, lands in hdr[3]
//	decoders[hdr[3]]          (three decoders)
//	panic: runtime error: index out of range [7] with length 3
//
// One goroutine, no concurrency; the test's input file testdata/v7.img
// says version 7, so every run panics (20 of 20 runs of go test
// -count=1 fail).
//
// Root cause (explain file): none. The index read at the crash, hdr[3],
// was last written by the operating system (the read system call behind
// io.ReadFull), not by a statement of the program: no load or store of the
// program defined the wrong value, there is no definition to check for a
// race or to suppress, and the value is exactly what the file holds. The
// defect is the input file, together with a missing check that is not a
// definition at all; reporting the index, the ReadFull call or the
// buffer's allocation (which stored zeroes, not 7) as the first corrupted
// definition would be a guess. precog explain must say that the value came
// from outside the program and that it found no root cause.
package rawinput

import (
	"errors"
	"io"
	"os"
)

// A decoder decodes an image's pixels.
type decoder func(pixels []byte) int

var decoders = [...]decoder{
	func(p []byte) int { return len(p) },
	func(p []byte) int { return 2 * len(p) },
	func(p []byte) int { return 4 * len(p) },
}

// Decode decodes the image in the named file and returns its size.
func Decode(name string) (int, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var hdr [4]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return 0, err
	}
	if string(hdr[:3]) != "IMG" {
		return 0, errors.New(name + ": not an image")
	}
	pixels, err := io.ReadAll(f)
	if err != nil {
		return 0, err
	}
	return decoders[hdr[3]](pixels), nil // the crash: the version is not checked
}
