package execbuf

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

func shell(t *testing.T) string {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh:", err)
	}
	return sh
}

// TestProgress shows a job's progress while it runs: the first line comes
// at once, the second 20ms later.
func TestProgress(t *testing.T) {
	j, err := Start(shell(t), "-c", "echo started; sleep 0.02; echo done")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	if p := j.Progress(); p != "" && !strings.HasPrefix(p, "started") {
		t.Errorf("progress = %q", p)
	}
	out, err := j.Wait()
	if err != nil || out != "started\ndone\n" {
		t.Errorf("Wait() = %q, %v", out, err)
	}
}

func TestOutput(t *testing.T) {
	out, errs, err := Output(shell(t), "-c", "echo out; echo err >&2")
	if err != nil || out != "out\n" || errs != "err\n" {
		t.Errorf("Output() = %q, %q, %v", out, errs, err)
	}
}

func TestLines(t *testing.T) {
	lines, err := Lines(shell(t), "-c", "echo a; echo b")
	if err != nil || strings.Join(lines, ",") != "a,b" {
		t.Errorf("Lines() = %q, %v", lines, err)
	}
}
