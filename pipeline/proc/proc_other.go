//go:build !unix

package proc

import "os/exec"

func ownGroup(*exec.Cmd) {}

func stopGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }

// killGroup does nothing: without process groups, a process's children
// are not known.
func killGroup(*exec.Cmd) {}
