//go:build unix

package proc

import (
	"os/exec"
	"syscall"
	"time"
)

func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	parentDeath(cmd.SysProcAttr)
}

// stopGroup sends SIGINT to the command's process group, as a terminal's
// Ctrl-C would (the go command removes its work directory then, and dies
// without on SIGTERM), and SIGKILL Grace later to whatever is left of it.
func stopGroup(cmd *exec.Cmd) error {
	pgid := cmd.Process.Pid // the leader's: Setpgid made the group
	err := syscall.Kill(-pgid, syscall.SIGINT)
	time.AfterFunc(Grace, func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	if err == syscall.ESRCH {
		return nil
	}
	return err
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
