// Package pipeclose is the control for the order an io.Pipe gives its two
// halves (package rtpipe in the shim; go-containerregistry's
// validate.computeLayer, held-out rehearsal 56), beside the bug of the
// same shape. A goroutine copies into the pipe, stores the count and
// closes the writer; the caller reads the pipe to its end through bufio
// and only then reads the count. io.Pipe orders the writer's Close before
// the read that finds the end of the stream (its done channel and error
// mutex, in the standard library, which precog does not instrument), so
// the count's read comes after its write; go test -race is silent on it.
// The checksum the goroutine stores after the Close is not ordered: the
// caller may be past the end of the stream and read it before it is
// stored (0, where the test wants the data's checksum). precog vet
// reports both reads: the static con-uninit check does not know the order
// io.Pipe gives, and its report of the count is a false positive (as on
// computeLayer).
package pipeclose

import (
	"bufio"
	"hash/crc32"
	"io"
)

// Sum copies r through a pipe and returns the number of bytes copied and
// their checksum.
func Sum(r io.Reader) (int64, uint32, error) {
	pr, pw := io.Pipe()
	h := crc32.NewIEEE()
	var size int64
	var sum uint32
	go func() {
		n, err := io.Copy(pw, io.TeeReader(r, h))
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		size = n
		pw.Close()
		sum = h.Sum32() // after the Close: the reader may have returned already
	}()
	// computeLayer reads through gzip and tar; any wrapper will do.
	if _, err := io.Copy(io.Discard, bufio.NewReader(pr)); err != nil {
		return 0, 0, err
	}
	return size, sum, nil // want `size may be read before it is set` `sum may be read before it is set`
}
