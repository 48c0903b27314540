package apientry

import "testing"

func TestRegister(t *testing.T) {
	t.Cleanup(Reset)
	Register(1, "a")
	Register(2, "b")
}

func TestParallelRegister(t *testing.T) {
	t.Parallel()
	Register(3, "c")
}
