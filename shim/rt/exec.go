package rt

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"unsafe"

	"github.com/precog-dev/precog/shim"
)

// The copying goroutines of os/exec. When a command's Stdout or Stderr is
// an io.Writer other than an *os.File, (*exec.Cmd).Start starts a goroutine
// that copies the command's output into it, and Wait waits for that
// goroutine. os/exec is not instrumented, so the writes it makes into the
// user's writer (a bytes.Buffer the test reads with String while the
// command runs) would be invisible. These wrappers model them at the
// user's call sites:
//
//	cmd.Start()            precog_rt.CmdStart(S, W, cmd)
//	cmd.Wait()             precog_rt.CmdWait(S, cmd)
//	cmd.Run()              precog_rt.CmdRun(S, W, cmd)             (Output alike)
//
// Start forks a task of the group cmd (shim.Task) for each writer and
// hands os/exec a writer of its own: each Write runs the next task on the
// copying goroutine, so that the user's writer's Write (instrumented, if
// it is the user's type) is recorded on it, and a *bytes.Buffer or
// *strings.Builder, whose methods are not instrumented, gets a write at
// site W, the call's. Each task forks the next before it ends: the writes
// are ordered as they ran on the one goroutine. Wait (and Run and the
// others once the command ended) joins the group's tasks (shim.Waited).
// The command's own fields are put back after Start, so the program never
// sees the wrappers.
//
// CombinedOutput refuses a Stdout or Stderr set by the user, so it copies
// into no writer of the user's. What stays unmodeled: Stdin (the goroutine reading a user's reader), the
// pipes of StdoutPipe and the like (the user's own goroutine reads them),
// and std writers other than bytes.Buffer and strings.Builder.

// CmdStart is cmd.Start(). site is the call's (a fork), write the site of
// the writes the copying goroutines make into the command's writers.
func CmdStart(site, write uint32, cmd *exec.Cmd) error {
	restore := wrapOutput(site, write, cmd, true)
	err := cmd.Start()
	restore()
	return err
}

// CmdWait is cmd.Wait(): when it returns, the copying goroutines have
// ended.
func CmdWait(site uint32, cmd *exec.Cmd) error {
	err := cmd.Wait()
	shim.Waited(site, unsafe.Pointer(cmd))
	return err
}

// CmdRun is cmd.Run(): Start and Wait.
func CmdRun(site, write uint32, cmd *exec.Cmd) error {
	restore := wrapOutput(site, write, cmd, true)
	err := cmd.Run()
	restore()
	shim.Waited(site, unsafe.Pointer(cmd))
	return err
}

// CmdOutput is cmd.Output(), which collects Stdout itself: only a Stderr
// the user set is the user's writer.
func CmdOutput(site, write uint32, cmd *exec.Cmd) ([]byte, error) {
	restore := wrapOutput(site, write, cmd, false)
	out, err := cmd.Output()
	restore()
	shim.Waited(site, unsafe.Pointer(cmd))
	return out, err
}

// wrapOutput replaces cmd's Stdout (if stdout) and Stderr with recording
// writers where os/exec would copy into them on a goroutine of its own, and
// returns the function that puts the user's writers back. One writer set
// as both gets one wrapper: os/exec then uses one pipe and one goroutine
// for both.
func wrapOutput(site, write uint32, cmd *exec.Cmd, stdout bool) (restore func()) {
	out, errw := cmd.Stdout, cmd.Stderr
	var wout, werr *cmdWriter
	if stdout && copied(out) {
		wout = newCmdWriter(site, write, cmd, out)
		cmd.Stdout = wout
	}
	if copied(errw) {
		if wout != nil && sameWriter(out, errw) {
			werr = wout
		} else {
			werr = newCmdWriter(site, write, cmd, errw)
		}
		cmd.Stderr = werr
	}
	return func() {
		if wout != nil {
			cmd.Stdout = out
		}
		if werr != nil {
			cmd.Stderr = errw
		}
	}
}

// copied reports whether os/exec copies a command's output into w on a
// goroutine: w is set and not an *os.File.
func copied(w io.Writer) bool {
	if w == nil {
		return false
	}
	_, isFile := w.(*os.File)
	return !isFile
}

// sameWriter is os/exec's test for one writer set as Stdout and Stderr
// (interface equality, for comparable dynamic types).
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = false // not comparable
		}
	}()
	return a == b
}

// A cmdWriter is what os/exec copies a command's output into in place of
// the user's writer w. Only the copying goroutine calls Write.
type cmdWriter struct {
	w     io.Writer
	write uint32         // the site of the modeled writes
	addr  unsafe.Pointer // w's *bytes.Buffer or *strings.Builder, or nil
	site  uint32         // the fork's
	group unsafe.Pointer // the command
	task  func()         // the next Write's task, forked by the last one (or Start)
	p     []byte         // the Write's argument and results, for the task
	n     int
	err   error
}

func newCmdWriter(site, write uint32, cmd *exec.Cmd, w io.Writer) *cmdWriter {
	c := &cmdWriter{w: w, write: write, site: site, group: unsafe.Pointer(cmd)}
	switch b := w.(type) {
	case *bytes.Buffer:
		c.addr = unsafe.Pointer(b)
	case *strings.Builder:
		c.addr = unsafe.Pointer(b)
	}
	c.fork()
	return c
}

// fork forks the task of the next Write, on the calling goroutine.
func (c *cmdWriter) fork() { c.task = shim.Task(c.site, c.group, c.run) }

func (c *cmdWriter) run() {
	if c.addr != nil {
		shim.Write(c.write, c.addr, 0)
	}
	c.n, c.err = c.w.Write(c.p)
	c.fork()
}

func (c *cmdWriter) Write(p []byte) (int, error) {
	c.p = p
	c.task()
	c.p = nil
	return c.n, c.err
}
