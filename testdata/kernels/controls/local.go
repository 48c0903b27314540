package controls

import (
	"bytes"
	"sync"
)

// localLog is the buffered log of package apache without a lock: safe
// because each request goroutine has its own.
type localLog struct {
	out    bytes.Buffer
	outbuf []byte
	outcnt int
}

func (b *localLog) writeLog(strs ...string) {
	n := 0
	for _, str := range strs {
		n += len(str)
	}
	if b.outcnt+n > len(b.outbuf) {
		b.flush()
	}
	s := b.outbuf[b.outcnt : b.outcnt+n]
	for _, str := range strs {
		s = s[copy(s, str):]
	}
	b.outcnt += n
}

func (b *localLog) flush() {
	b.out.Write(b.outbuf[:b.outcnt])
	b.outcnt = 0
}

// LogLocal logs each request's lines into a buffer of its own goroutine, with
// its own per-goroutine map of counts, and returns the flushed logs.
func LogLocal(requests [][]string) []string {
	out := make([]string, len(requests))
	var wg sync.WaitGroup
	for i, lines := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := &localLog{outbuf: make([]byte, 48)}
			seen := make(map[string]int)
			for _, l := range lines {
				seen[l]++
				b.writeLog("GET ", l, "\n")
			}
			b.flush()
			b.outbuf = nil
			out[i] = b.out.String()
		}()
	}
	wg.Wait()
	return out
}
