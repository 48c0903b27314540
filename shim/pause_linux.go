package shim

import "syscall"

// pause sleeps the running goroutine's thread for d nanoseconds in a
// system call: not durably blocked in a synctest bubble (see pollUntil),
// and off the CPU.
func pause(d int64) {
	ts := syscall.NsecToTimespec(d)
	syscall.Nanosleep(&ts, nil)
}
