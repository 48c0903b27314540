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

// TestRelabel runs Relabel and its variants. It allows the empty label
// that the Unset and Empty ones' goroutines may send, as TestRun allows
// any count.
func TestRelabel(t *testing.T) {
	param := func(send func(string)) string { return RelabelParam("x", send) }
	for _, relabel := range []func(func(string)) string{Relabel, RelabelUnset, RelabelEmpty, RelabelField, RelabelFieldUnset, RelabelIf, param} {
		got := relabel(func(label string) {
			if label != "" && label != "x" && label != "y" {
				t.Errorf("sent label %q", label)
			}
		})
		if got != "y" {
			t.Errorf("label %q, want y", got)
		}
	}
}
