//go:build !unix

package budget

import "time"

// cpuTime cannot tell the process's processor time here; the time limit
// then counts wall time alone.
func cpuTime() (time.Duration, bool) { return 0, false }
