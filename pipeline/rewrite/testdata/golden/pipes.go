package golden

import (
	"bufio"
	"io"
)

// computeLayer's shape (go-containerregistry's validate): a goroutine
// copies into the pipe, stores the count and closes the writer; the
// caller reads the pipe to its end through bufio, then reads the count.
// The writer is wrapped by rtpipe.Writer where io.Copy is handed it and
// at its Close and CloseWithError, the reader by rtpipe.Reader where
// bufio.NewReader keeps it; the reader's own Close is not.
func count(r io.Reader) (int64, error) {
	pr, pw := io.Pipe()
	defer pr.Close()
	var size int64
	go func() {
		n, err := io.Copy(pw, r)
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		size = n
		pw.Close()
	}()
	if _, err := io.Copy(io.Discard, bufio.NewReader(pr)); err != nil {
		return 0, err
	}
	return size, nil
}
