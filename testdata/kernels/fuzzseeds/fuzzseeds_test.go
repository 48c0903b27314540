package fuzzseeds

import "testing"

func FuzzDecode(f *testing.F) {
	d := &Decoder{}
	f.Add([]byte("a"))
	f.Add([]byte("bb"))
	f.Add([]byte("ccc"))
	f.Fuzz(func(_ *testing.T, data []byte) {
		if d.Decode(data) != len(data) {
			panic("wrong length")
		}
	})
}

func TestDecode(t *testing.T) {
	if n := (&Decoder{}).Decode([]byte("abc")); n != 3 {
		t.Fatalf("Decode gave %d, want 3", n)
	}
}
