package shim

import (
	"os"
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
	if err := openTrace(path, test); err != nil {
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

func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
