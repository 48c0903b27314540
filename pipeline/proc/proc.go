// Package proc starts the processes precog runs (go builds, test binaries,
// forced and replayed runs) so that they can be stopped whole, leaving no
// orphan behind: each runs in a process group of its own, which a
// cancelled context (precog interrupted, or a run's time limit) stops with
// SIGINT and, Grace later, SIGKILL. On Linux a child is also killed if
// precog itself dies (SIGKILL included) before it.
//
// A process group of its own also keeps a terminal's Ctrl-C from reaching
// the children directly: precog receives it, stops them as above, cleans
// up and exits (see cli.WithSignals).
package proc

import (
	"context"
	"os/exec"
	"time"
)

// Grace is how long a stopped process group has between SIGINT and
// SIGKILL.
const Grace = 2 * time.Second

// Command is exec.CommandContext with the stopping described in the
// package doc. The caller may set Dir, Env and the standard streams, not
// SysProcAttr, Cancel or WaitDelay.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	ownGroup(cmd)
	cmd.Cancel = func() error { return stopGroup(cmd) }
	// Wait returns at most this long after the cancel, even if a process
	// that outlived the group's leader holds the output pipes.
	cmd.WaitDelay = Grace + time.Second
	return cmd
}

// KillGroup kills whatever is left of the process group of cmd, which has
// been waited for: the children of a test process that timed out, which
// its own panic does not end (a server it started, with output of its own,
// holds none of the pipes that Wait waits for).
func KillGroup(cmd *exec.Cmd) { killGroup(cmd) }
