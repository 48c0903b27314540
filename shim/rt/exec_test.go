package rt

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// countWriter is a user's writer: its Write runs on os/exec's goroutine.
type countWriter struct {
	b     strings.Builder
	calls int
}

func (w *countWriter) Write(p []byte) (int, error) {
	w.calls++
	return w.b.Write(p)
}

// TestCmdWrappersKeepMeaning: the wrappers hand os/exec their own writers
// only while it starts the command, deliver the output to the user's
// writers, keep one writer set as both Stdout and Stderr one (os/exec
// then writes both through one pipe, in order), leave *os.File writers to
// os/exec and refuse nothing os/exec accepts.
func TestCmdWrappersKeepMeaning(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh:", err)
	}
	var both bytes.Buffer
	cmd := exec.Command(sh, "-c", "echo a; echo b >&2; echo c")
	cmd.Stdout, cmd.Stderr = &both, &both
	if err := CmdStart(1, 2, cmd); err != nil {
		t.Fatal(err)
	}
	if cmd.Stdout != &both || cmd.Stderr != &both {
		t.Error("Start left the wrappers in the command")
	}
	if err := CmdWait(3, cmd); err != nil {
		t.Fatal(err)
	}
	if got := both.String(); got != "a\nb\nc\n" {
		t.Errorf("one writer for both: %q, want the lines in order", got)
	}

	w := &countWriter{}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	cmd = exec.Command(sh, "-c", "echo out; echo err >&2")
	cmd.Stdout, cmd.Stderr = w, devnull
	if err := CmdRun(4, 5, cmd); err != nil {
		t.Fatal(err)
	}
	if w.b.String() != "out\n" || w.calls == 0 || cmd.Stdout != w || cmd.Stderr != devnull {
		t.Errorf("Run: %q in %d calls; Stdout %T, Stderr %T", w.b.String(), w.calls, cmd.Stdout, cmd.Stderr)
	}

	var errb strings.Builder
	cmd = exec.Command(sh, "-c", "echo out; echo err >&2")
	cmd.Stderr = &errb
	out, err := CmdOutput(6, 7, cmd)
	if err != nil || string(out) != "out\n" || errb.String() != "err\n" || cmd.Stderr != &errb {
		t.Errorf("Output: %q, %v; stderr %q", out, err, errb.String())
	}
}
