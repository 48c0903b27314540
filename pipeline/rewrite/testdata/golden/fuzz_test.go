package golden

import "testing"

type frame struct{ n int }

// FuzzBlank is a fuzz target: TestStart(f). Its fuzz function's T is
// blank: named precog_t, TestStart(precog_t).
func FuzzBlank(f *testing.F) {
	fr := &frame{}
	f.Add([]byte("a"))
	f.Fuzz(func(_ *testing.T, data []byte) {
		fr.n = len(data)
	})
}

// FuzzNamed's T is named: TestStart(t).
func FuzzNamed(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string, n int) {
		t.Log(s, n)
	})
}

// FuzzUnnamed's parameters are unnamed: precog_t and blanks.
func FuzzUnnamed(f *testing.F) {
	f.Fuzz((func(*testing.T, []byte, int) {}))
}

// FuzzValue hands a function value: left as a value.
func FuzzValue(f *testing.F) {
	f.Fuzz(fuzzBody)
}

func fuzzBody(t *testing.T, data []byte) {}

// Fuzzy takes no *testing.F: no fuzz target, nothing.
func Fuzzy(n int) {}
