// Package fuzzseeds has a Decoder that a fuzz target reuses across its
// inputs (pion/turn's FuzzChannelData: one ChannelData for every input).
// go test without -fuzz runs the fuzz function once per seed input, each
// on a goroutine of its own that the testing package starts only after
// the previous input's run ended (testing's fuzz.go: go tRunner(...),
// then <-t.signal), so the Decoder's writes race with nothing.
//
// This is a negative control: testing is not instrumented, and the fuzz
// function's T is blank, so no TestStart named the inputs' runs and the
// trace ordered none after the previous one: every pair of inputs was a
// race. The instrumenter makes a fuzz target a test (TestStart(f)) and its
// fuzz function a subtest (TestStart of its T, named precog_t where it is
// blank), which hb orders as t.Run's. precog test reports nothing.
package fuzzseeds

// Decoder decodes a frame into fields it keeps.
type Decoder struct {
	n    int
	last byte
}

// Decode keeps data's length and last byte; it reports the length.
func (d *Decoder) Decode(data []byte) int {
	d.n = len(data)
	if d.n > 0 {
		d.last = data[d.n-1]
	}
	return d.n
}
