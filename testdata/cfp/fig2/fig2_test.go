package fig2

import "testing"

func TestRun(t *testing.T) {
	if n := Run(); n < 1 || n > 2 {
		t.Fatalf("Run() = %d", n)
	}
}
