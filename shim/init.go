package shim

import (
	"errors"
	"os"
	"strconv"
	"unsafe"

	"github.com/precog-dev/precog/shim/plan"
)

func init() {
	path := os.Getenv("PRECOG_TRACE")
	if path == "" {
		return
	}
	// A process this one starts must not truncate the file under our
	// mapping (a test that re-executes itself, say).
	os.Unsetenv("PRECOG_TRACE")
	// The test the process runs, when precog record runs one per process;
	// it goes into the trace's header.
	test := os.Getenv("PRECOG_TEST")
	os.Unsetenv("PRECOG_TEST")
	if err := readFilter(); err != nil {
		os.Stderr.WriteString("precog shim: not recording: " + plan.AccessesEnv + ": " + err.Error() + "\n")
		return
	}
	limit, err := readTraceLimit()
	if err != nil {
		os.Stderr.WriteString("precog shim: not recording: " + plan.TraceLimitEnv + ": " + err.Error() + "\n")
		return
	}
	if err := openTrace(path, test, limit); err != nil {
		os.Stderr.WriteString("precog shim: not recording: " + err.Error() + "\n")
		return
	}
	enable()
}

// enable turns the shim on: it finds the goid field, decides whether stack
// accesses and repeated reads are recorded and starts counting GC epochs. Control calls it
// too (a forced run need not record a trace, and its plan's instance
// counts must skip what the recording skipped); it runs during package
// initialization only.
func enable() {
	if enabled {
		return
	}
	goidOffset = discoverGoidOffset()
	readStackFilter()
	readRepeatFilter()
	armEpoch()
	enabled = true
}

// readTraceLimit reads plan.TraceLimitEnv: the size in bytes the trace
// file may not grow past, 0 (unset) for no limit.
func readTraceLimit() (int64, error) {
	v := os.Getenv(plan.TraceLimitEnv)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, errors.New("want a positive number of bytes, got " + strconv.Quote(v))
	}
	return n, nil
}

func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
