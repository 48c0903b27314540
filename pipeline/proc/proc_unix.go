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

// stopGroup sends SIGTERM to the command's process group, and SIGKILL
// Grace later to whatever is left of it.
func stopGroup(cmd *exec.Cmd) error {
	pgid := cmd.Process.Pid // the leader's: Setpgid made the group
	err := syscall.Kill(-pgid, syscall.SIGTERM)
	time.AfterFunc(Grace, func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	if err == syscall.ESRCH {
		return nil
	}
	return err
}
