//go:build !unix

package proc

import "os/exec"

func ownGroup(*exec.Cmd) {}

func stopGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
