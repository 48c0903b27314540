package shim

import (
	"reflect"
	"testing"
)

// TestElemOfValue checks that a value received or sent in reflect.Select
// gets the fingerprint a typed send of the same element records (an
// interface's two words for a channel of an interface type), and that
// nothing received, or a concrete value sent into a channel of an
// interface type (boxed anew by the send), is unknown.
func TestElemOfValue(t *testing.T) {
	ints := reflect.ValueOf(make(chan int))
	if got, want := elemOfValue(ints, reflect.ValueOf(42), true), ElemOf(new(42)); got != want {
		t.Errorf("int: %#x, want %#x", got, want)
	}
	anys := reflect.ValueOf(make(chan any))
	var x any = &struct{ n int }{7}
	if got, want := elemOfValue(anys, reflect.ValueOf(&x).Elem(), true), ElemOf(&x); got != want {
		t.Errorf("an any from chan any: %#x, want %#x", got, want)
	}
	if got := elemOfValue(anys, reflect.ValueOf("hello"), true); got != 0 {
		t.Errorf("a string into chan any: %#x, want 0", got)
	}
	if got := elemOfValue(ints, reflect.Value{}, false); got != 0 {
		t.Errorf("nothing received: %#x, want 0", got)
	}
}
