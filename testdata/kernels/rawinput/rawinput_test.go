package rawinput

import "testing"

// TestDecode decodes an image of version 7, which Decode does not know: it
// may refuse the file, but must not crash.
func TestDecode(t *testing.T) {
	n, err := Decode("testdata/v7.img")
	t.Logf("Decode: %d, %v", n, err)
}
