package manysites

import "testing"

func TestGet(t *testing.T) {
	b := &Box{p: &T{n: 1}}
	if b.Get() != 1 {
		t.Fatal("wrong")
	}
}
