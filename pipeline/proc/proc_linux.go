package proc

import "syscall"

// parentDeath has the kernel kill the child if precog dies first.
func parentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
