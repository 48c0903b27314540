package execbuf

import (
	"bytes"
	"os/exec"
	"strings"
)

// The RIGHT versions, which neither precog nor go test -race may report:
// the buffers are read only after Run or Wait returned, once os/exec's
// copying goroutine has ended.

// Output runs name with args and returns its standard output and standard
// error.
func Output(name string, args ...string) (stdout, stderr string, err error) {
	var out bytes.Buffer
	var errb strings.Builder
	cmd := exec.Command(name, args...)
	cmd.Stdout = &out
	cmd.Stderr = &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// Lines starts name with args and returns its output's lines once it
// exited.
func Lines(name string, args ...string) ([]string, error) {
	out := new(bytes.Buffer)
	cmd := &exec.Cmd{Path: name, Args: append([]string{name}, args...), Stdout: out}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	err := cmd.Wait()
	return strings.Fields(out.String()), err
}
