// Package execbuf is the os/exec output-buffer kernel: a data race between
// the goroutine os/exec starts to copy a command's output into the
// caller's bytes.Buffer and the caller reading the buffer while the
// command runs (issue 10, item 3: writes inside the standard library
// reached through the user's writer, attributed to the user's call site).
//
// A job runner starts a command and shows its output so far. Start hands
// os/exec the job's buffer as the command's Stdout; os/exec copies the
// output into it on a goroutine of its own until the command exits, and
// only Wait orders that goroutine's writes before what follows it.
// Progress reads the buffer with no order against those writes:
//
//	test goroutine                 os/exec's copying goroutine
//	j.cmd.Start()                  (started by Start)
//	                               j.out.Write("started\n")   (in io.Copy)
//	j.out.String()  // Progress    j.out.Write("done\n")
//	j.cmd.Wait()
//
// go test -race reports it inside bytes.Buffer (Write against String); the
// effects are a torn or stale string, or, when the buffer grows during the
// read, bytes of a freed array.
package execbuf

import (
	"bytes"
	"os/exec"
)

// Job is a command running in the background.
type Job struct {
	cmd *exec.Cmd
	out bytes.Buffer
}

// Start starts name with args, collecting its standard output.
func Start(name string, args ...string) (*Job, error) {
	j := &Job{cmd: exec.Command(name, args...)}
	j.cmd.Stdout = &j.out
	if err := j.cmd.Start(); err != nil {
		return nil, err
	}
	return j, nil
}

// Progress returns the output so far: it reads the buffer while os/exec
// may be writing it.
func (j *Job) Progress() string {
	return j.out.String()
}

// Wait waits for the command and returns its whole output.
func (j *Job) Wait() (string, error) {
	err := j.cmd.Wait()
	return j.out.String(), err
}
