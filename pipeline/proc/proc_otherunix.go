//go:build unix && !linux

package proc

import "syscall"

func parentDeath(*syscall.SysProcAttr) {}
