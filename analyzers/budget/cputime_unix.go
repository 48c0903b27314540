//go:build unix

package budget

import (
	"syscall"
	"time"
)

// cpuTime returns the processor time, user and system, that the process
// has used so far, and whether it could tell.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
