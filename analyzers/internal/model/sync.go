package model

import "golang.org/x/tools/go/ssa"

// LockOp is what a call does to a mutex.
type LockOp int

const (
	Lock     LockOp = iota + 1 // acquire for writing
	Unlock                     // release a write lock
	RLock                      // acquire for reading
	RUnlock                    // release a read lock
	TryLock                    // acquire for writing if the result is true
	TryRLock                   // acquire for reading if the result is true
)

var lockOps = map[string]LockOp{
	"(*sync.Mutex).Lock":       Lock,
	"(*sync.Mutex).Unlock":     Unlock,
	"(*sync.Mutex).TryLock":    TryLock,
	"(*sync.RWMutex).Lock":     Lock,
	"(*sync.RWMutex).Unlock":   Unlock,
	"(*sync.RWMutex).TryLock":  TryLock,
	"(*sync.RWMutex).RLock":    RLock,
	"(*sync.RWMutex).RUnlock":  RUnlock,
	"(*sync.RWMutex).TryRLock": TryRLock,
	"(sync.Locker).Lock":       Lock,
	"(sync.Locker).Unlock":     Unlock,
}

// LockOpOf returns the lock operation of the named function or method.
func LockOpOf(name string) (LockOp, bool) {
	op, ok := lockOps[name]
	return op, ok
}

// WaitGroup and Once operations that order goroutines.
const (
	WaitGroupAdd  = "(*sync.WaitGroup).Add"
	WaitGroupDone = "(*sync.WaitGroup).Done"
	WaitGroupWait = "(*sync.WaitGroup).Wait"
	OnceDo        = "(*sync.Once).Do"
)

// Releases maps methods that release the resource their receiver holds,
// so that a later use by another goroutine reads freed or reused state.
var Releases = map[string]string{
	"(*bytes.Buffer).Reset":    "Reset",
	"(*strings.Builder).Reset": "Reset",
	"(*bufio.Writer).Reset":    "Reset",
	"(*bufio.Reader).Reset":    "Reset",
}

// Counts are the methods of the buffers in Releases that only read their
// receiver's counters: after another goroutine's Reset they count the
// emptied buffer (a wrong number, never a panic), so they are no use of
// what the Reset released (nxadm/tail's Tell: tail.reader.Buffered()
// while the tailing goroutine's seekTo Resets the reader).
var Counts = map[string]bool{
	"(*bytes.Buffer).Len":       true,
	"(*bytes.Buffer).Cap":       true,
	"(*bytes.Buffer).Available": true,
	"(*strings.Builder).Len":    true,
	"(*strings.Builder).Cap":    true,
	"(*bufio.Writer).Available": true,
	"(*bufio.Writer).Buffered":  true,
	"(*bufio.Writer).Size":      true,
	"(*bufio.Reader).Buffered":  true,
	"(*bufio.Reader).Size":      true,
}

// PoolPut returns an object to a sync.Pool; the object (the argument) is
// released.
const PoolPut = "(*sync.Pool).Put"

// TestingReports are the *testing.T, *testing.B and testing.TB methods
// that must not be called after the test function returns.
var TestingReports = map[string]bool{}

// noReturn are the library functions that never return to their caller,
// by types.Func.FullName: they end the goroutine (runtime.Goexit, which
// t.Fatal, t.FailNow and t.Skip call) or the program. init adds the
// testing methods and testify's require.Fail and require.FailNow.
var noReturn = map[string]bool{
	"os.Exit":               true,
	"runtime.Goexit":        true,
	"syscall.Exit":          true,
	"log.Fatal":             true,
	"log.Fatalf":            true,
	"log.Fatalln":           true,
	"log.Panic":             true,
	"log.Panicf":            true,
	"log.Panicln":           true,
	"(*log.Logger).Fatal":   true,
	"(*log.Logger).Fatalf":  true,
	"(*log.Logger).Fatalln": true,
	"(*log.Logger).Panic":   true,
	"(*log.Logger).Panicf":  true,
	"(*log.Logger).Panicln": true,
}

// NoReturn reports whether the named function never returns to its
// caller.
func NoReturn(name string) bool {
	return noReturn[name]
}

func init() {
	for _, recv := range []string{"(*testing.T).", "(*testing.B).", "(*testing.common).", "(testing.TB)."} {
		for _, m := range []string{"Fatal", "Fatalf", "FailNow", "Skip", "Skipf", "SkipNow"} {
			noReturn[recv+m] = true
		}
		// The methods that panic ("Log in goroutine after TestX has
		// completed") when the test has already returned.
		for _, m := range []string{"Log", "Logf", "Error", "Errorf", "Fatal", "Fatalf", "Fail", "FailNow",
			"Skip", "Skipf", "SkipNow"} {
			TestingReports[recv+m] = true
		}
	}
	// testify's require.Fail, Failf, FailNow and FailNowf (and the
	// *require.Assertions methods of those names) fail the test without
	// a condition: each calls t.FailNow after assert's Fail, which
	// returns false, so on a *testing.T they never return (pion/ice's
	// `case <-time.After(time.Second): require.FailNow(t, "...")` in a
	// select whose other case receives from the goroutine's done
	// channel). assert.Fail and assert.FailNow are left out: assert.Fail
	// returns, and assert.FailNow returns on a TestingT without a FailNow
	// method.
	for _, m := range []string{"Fail", "Failf", "FailNow", "FailNowf"} {
		noReturn["github.com/stretchr/testify/require."+m] = true
		noReturn["(*github.com/stretchr/testify/require.Assertions)."+m] = true
	}
}

// syncCallbacks are functions of other packages known to call the function
// values they are given before they return, on the calling goroutine, so
// that locks held around the call are held in the callback.
var syncCallbacks = map[string]bool{
	"(*sync.Once).Do":         true,
	"(*sync.Map).Range":       true,
	"sort.Slice":              true,
	"sort.SliceStable":        true,
	"sort.SliceIsSorted":      true,
	"sort.Search":             true,
	"slices.SortFunc":         true,
	"slices.SortStableFunc":   true,
	"slices.IndexFunc":        true,
	"slices.ContainsFunc":     true,
	"slices.DeleteFunc":       true,
	"slices.BinarySearchFunc": true,
	"slices.CompactFunc":      true,
	"slices.EqualFunc":        true,
	"slices.MaxFunc":          true,
	"slices.MinFunc":          true,
	"maps.DeleteFunc":         true,
	"strings.Map":             true,
	"strings.IndexFunc":       true,
	"strings.FieldsFunc":      true,
	"strings.TrimFunc":        true,
	"bytes.Map":               true,
	"bytes.IndexFunc":         true,
	"bytes.FieldsFunc":        true,
	"path/filepath.Walk":      true,
	"path/filepath.WalkDir":   true,
	"io/fs.WalkDir":           true,
	"(*testing.T).Run":        true,
	"(*testing.B).Run":        true,
}

// Cleanup reports whether the named function is the testing Cleanup
// method (of *testing.T, B or F, through their embedded common, or of
// testing.TB): it runs the function it is given when the test whose T it
// is has ended: after the test function returned (its deferred calls
// too) and after its subtests, parallel ones included, on the test's
// goroutine; the cleanups registered later run first.
func Cleanup(name string) bool {
	switch name {
	case "(*testing.common).Cleanup", "(*testing.T).Cleanup", "(*testing.B).Cleanup", "(*testing.F).Cleanup", "(testing.TB).Cleanup":
		return true
	}
	return false
}

// SyncCallback reports whether the named function calls the function
// values it is given synchronously, before returning.
func SyncCallback(name string) bool {
	return syncCallbacks[name]
}

// syncInterfaces are functions of other packages that call methods of the
// interface value they are given (the first argument) before they return,
// on the calling goroutine, and keep no reference to it: the methods each
// may call, by name. A lock held around the call is held in those methods.
var syncInterfaces = map[string][]string{
	"container/heap.Init":   {"Len", "Less", "Swap"},
	"container/heap.Push":   {"Len", "Less", "Swap", "Push"},
	"container/heap.Pop":    {"Len", "Less", "Swap", "Pop"},
	"container/heap.Remove": {"Len", "Less", "Swap", "Pop"},
	"container/heap.Fix":    {"Len", "Less", "Swap"},
	"sort.Sort":             {"Len", "Less", "Swap"},
	"sort.Stable":           {"Len", "Less", "Swap"},
	"sort.IsSorted":         {"Len", "Less"},
}

// SyncInterfaceMethods returns the names of the methods that the named
// function calls on the interface value it is given as its first
// argument, before it returns and on the caller's goroutine, keeping no
// reference to it; nil if it is not known to do so.
func SyncInterfaceMethods(name string) []string {
	return syncInterfaces[name]
}

// SyncInterfaceCalls returns the calls that mi's interface value goes
// into when it goes nowhere else: each referrer of mi is a call that
// passes it as the first argument of a function SyncInterfaceMethods
// knows, and as no other. Such a value's methods run only within those
// calls, on their goroutine; ok is false otherwise.
func SyncInterfaceCalls(mi *ssa.MakeInterface) (calls []*ssa.Call, ok bool) {
	refs := mi.Referrers()
	if refs == nil || len(*refs) == 0 {
		return nil, false
	}
	for _, r := range *refs {
		call, isCall := r.(*ssa.Call)
		if !isCall || call.Call.IsInvoke() || SyncInterfaceMethods(CalleeName(&call.Call)) == nil {
			return nil, false
		}
		for i, arg := range call.Call.Args {
			if arg == ssa.Value(mi) && i != 0 {
				return nil, false
			}
		}
		calls = append(calls, call)
	}
	return calls, true
}
