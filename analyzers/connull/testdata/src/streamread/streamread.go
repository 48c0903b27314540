// Package streamread is net/http's readWriteCloserBody: Read drains a
// buffered reader it holds and then drops it (stores nil). A probe
// goroutine calls Read once before the caller's Reads, ordered through a
// channel the analysis does not follow. Both sides of the pair are in
// one Read of one value: only two goroutines reading one reader at once,
// which io.Reader does not promise to allow, make it; low confidence.
// The same in a method that is not io.Reader's Read, or with the other
// side in another method, stays reported at the default confidence.
package streamread

type buf struct{ n int }

func (b *buf) Len() int { return b.n }

type body struct {
	br, mr, or *buf
}

// Read reads what br holds, then drops it.
func (b *body) Read(p []byte) (int, error) {
	if b.br != nil {
		n := b.br.Len() // want `b.br may be nil when used to call \(\*buf\).Len here: \(\*body\).Read stores nil to it concurrently \(low confidence: it assumes that two goroutines call Read on one value at once, which io.Reader does not promise to allow\)`
		b.br = nil
		return n, nil
	}
	return 0, nil
}

// ReadMsg is no io.Reader's Read.
func (b *body) ReadMsg() int {
	if b.mr != nil {
		n := b.mr.Len() // want `b.mr may be nil when used to call \(\*buf\).Len here: \(\*body\).ReadMsg stores nil to it concurrently$`
		b.mr = nil
		return n
	}
	return 0
}

// Write reads or from another method than the one that drops it.
func (b *body) Write(p []byte) (int, error) {
	if b.or != nil {
		return b.or.Len(), nil // want `b.or may be nil when used to call \(\*buf\).Len here: \(\*body\).Reset stores nil to it concurrently$`
	}
	return 0, nil
}

func (b *body) Reset() { b.or = nil }

func Probe(b *body) {
	go b.Read(nil)
	b.Read(make([]byte, 1))
	go b.ReadMsg()
	b.ReadMsg()
	go b.Write(nil)
	b.Reset()
}
