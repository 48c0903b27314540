package raceslice

import "testing"

func TestRun(t *testing.T) {
	got := Run(4, func(done int) {
		if done < 0 || done > 4 {
			t.Errorf("progress %d", done)
		}
	})
	for i, r := range got {
		if r != i*i+1 {
			t.Errorf("results[%d] = %d", i, r)
		}
	}
}
