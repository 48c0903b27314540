package spinflag

import "testing"

func TestSpinAtomic(t *testing.T) {
	if n := RunAtomic(); n != 1 {
		t.Errorf("rows = %d, want 1", n)
	}
}

func TestSpinLocked(t *testing.T) {
	if n := RunLocked(); n != 1 {
		t.Errorf("rows = %d, want 1", n)
	}
}
