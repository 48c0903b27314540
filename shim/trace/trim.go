package trace

import (
	"encoding/binary"
	"io"
	"os"
)

// trimChunk is the alignment of the chunks the shim hands its goroutines
// in a memory-mapped trace; the file grows in zero-filled segments of many
// chunks.
const trimChunk = 4 << 10

// Trim cuts the unused zero tail off the trace file at path, which its
// process, now ended, wrote through a memory map: a short test leaves a
// 64 KiB file otherwise. It cuts at the chunk boundary after the last
// non-zero byte, so that an event the process appended but never committed
// stays whole (the reader skips it; cut, it would read as damage), and
// lowers the header's extent to the new size first, since the zeros it
// cuts are padding, not a loss. A file whose header does not read is left
// as it is.
func Trim(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	r, err := NewReader(io.NewSectionReader(f, 0, fi.Size()))
	if err != nil {
		return nil // left as it is, for the reader to report
	}
	end := fi.Size()
	buf := make([]byte, 64<<10)
	for end > 0 {
		n := min(int64(len(buf)), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return err
		}
		if j := lastNonZero(buf[:n]); j >= 0 {
			end = end - n + int64(j) + 1
			break
		}
		end -= n
	}
	size := (end + trimChunk - 1) / trimChunk * trimChunk
	if size >= fi.Size() {
		return nil
	}
	if r.extent > size {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], uint64(size))
		if _, err := f.WriteAt(w[:], r.block+ExtentField); err != nil {
			return err
		}
	}
	return f.Truncate(size)
}

func lastNonZero(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] != 0 {
			return i
		}
	}
	return -1
}
