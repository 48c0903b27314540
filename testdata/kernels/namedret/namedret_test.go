package namedret

import "testing"

func TestCount(t *testing.T) {
	n, done := Count([]string{"a", ""})
	<-done
	if n > 1 {
		t.Errorf("%d, want at most 1", n)
	}
}

func TestSafeCount(t *testing.T) {
	if n := SafeCount([]string{"a", "", "b"}); n != 2 {
		t.Errorf("%d, want 2", n)
	}
}

func TestDeferCount(t *testing.T) {
	if n := DeferCount([]string{"a", "", "b"}); n != 2 {
		t.Errorf("%d, want 2", n)
	}
}
