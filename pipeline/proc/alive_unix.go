//go:build unix

package proc

import (
	"errors"
	"syscall"
)

// Alive reports whether a process with this id exists: one that signal 0
// reaches, or that exists but belongs to another user (EPERM).
func Alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
