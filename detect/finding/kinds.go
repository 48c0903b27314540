package finding

import "strconv"

// The kinds of finding. A kind's name is its stable identifier everywhere:
// the Category of the static checks' diagnostics (and so the name that
// //precog:ignore takes), the Kind of runtime findings, the first word of
// an expect file's lines, and the rule ID in SARIF logs.
const (
	ConNull   = "con-null"
	ConUninit = "con-uninit"
	ConClosed = "con-closed"
	ConIndex  = "con-index"
	ConMap    = "con-map"
	OSCS      = "oscs"
	// Crash and TestFailed are a recorded run's own failure (a panic, a
	// fatal error or a timeout; a t.Error or t.Fatal): it happened.
	Crash      = "crash"
	TestFailed = "test-failed"
	// Race is a data race (detect/races).
	Race = "race"
	// Limit is not a bug of the user's code: a static analysis stopped at
	// a budget, so it may have missed some.
	Limit = "limit"
)

// UnicornPatterns is the number of Unicorn's access patterns (P1 to P17 of
// the paper's Table I); each is a kind of its own, named by Unicorn.
const UnicornPatterns = 17

// Unicorn returns the kind of Unicorn's pattern p, such as "unicorn-p9".
func Unicorn(p int) string { return "unicorn-p" + strconv.Itoa(p) }

// InternalError is the Category of the diagnostic a check reports when it
// panics. It is a precog bug, not a kind of finding: writers report it as
// a problem of the tool, never as a finding of the code.
const InternalError = "internal-error"

// The roles of sites. A kind's sites take the roles its catalog entry
// lists, whichever side (a static check or a trace checker) reports it, so
// that both give the same bug the same ID.
const (
	RoleDeref    = "deref"     // the dereference of a value another goroutine may set to nil
	RoleNilStore = "nil-store" // the store of nil
	RoleRead     = "read"      // a read that may come before its initialization
	RoleInit     = "init"      // the initializing write
	RoleDone     = "done"      // a WaitGroup.Done that may come before its Add
	RoleAdd      = "add"       // the WaitGroup.Add
	RoleWait     = "wait"      // a WaitGroup.Wait that may return before an Add
	RoleLog      = "log"       // a t.Log (or another method that panics once its test has completed)
	RoleClose    = "close"     // a channel close
	RoleSend     = "send"      // a send on the channel closed
	RoleIndex    = "index"     // the read of an index or bound
	RoleWrite    = "write"     // a write of a shared location
	RoleMapWrite = "map-write" // a map write
	RoleMapRead  = "map-read"  // a map read
	RoleMapRange = "map-range" // a map iteration
	RoleLock     = "lock"      // a lock acquisition
	RoleGo       = "go"        // a go statement (in Spawns)
	RoleCall     = "call"      // an open call (in Stacks)
	RolePanic    = "panic"     // where a recorded run panicked
	RoleFatal    = "fatal"     // where it died of a fatal runtime error
	RoleHang     = "hang"      // where its test's goroutine was stuck at the timeout
	RoleFail     = "fail"      // the t.Error or t.Fatal that failed it
	RoleExit     = "exit"      // it exited non-zero with no message
)

// A Kind describes one kind of finding.
type Kind struct {
	Name string
	// Summary is one lower-case line saying what the bug is, for help texts
	// and SARIF rules.
	Summary string
	// Crash says how the bug shows in a Go program.
	Crash string
	// Roles are the roles its sites take, in the order the checkers list
	// them; nil for kinds whose roles vary (Unicorn's access labels).
	Roles []string
	// Static and Runtime say whether precog vet (a static check) and
	// precog test (a trace checker) report it.
	Static, Runtime bool
}

// catalog is every kind, in the order help and SARIF list them.
var catalog = append([]Kind{
	{Name: ConNull, Summary: "a shared pointer, map, func or channel that another goroutine may set to nil before it is dereferenced",
		Crash: "nil pointer dereference, nil map write, call of a nil func, or a nil channel that blocks forever",
		Roles: []string{RoleDeref, RoleNilStore}, Static: true, Runtime: true},
	{Name: ConUninit, Summary: "a read that may run before another goroutine's first write",
		Crash: "a zero value read: nil dereference, negative WaitGroup counter, or a wrong result",
		Roles: []string{RoleRead, RoleInit, RoleDone, RoleAdd}, Static: true, Runtime: true},
	{Name: ConClosed, Summary: "a use of a channel or object that another goroutine may release first",
		Crash: "send on closed channel, close of closed channel, use after Close, Reset or Put, t.Log after the test ended",
		Roles: []string{RoleClose, RoleSend}, Static: true, Runtime: true},
	{Name: ConIndex, Summary: "an index or slice expression whose index or slice another goroutine may change",
		Crash: "index out of range, slice bounds out of range",
		Roles: []string{RoleIndex, RoleWrite}, Static: true, Runtime: true},
	{Name: ConMap, Summary: "a map that goroutines may access concurrently, one of them writing",
		Crash: "fatal error: concurrent map writes, or concurrent map read and map write",
		Roles: []string{RoleMapWrite, RoleMapRead, RoleMapRange}, Static: true, Runtime: true},
	{Name: OSCS, Summary: "a pair of critical sections meant to be atomic that another goroutine's critical section may split",
		Crash: "a read that sees another goroutine's write it was not meant to: a wrong result or a later crash",
		Roles: []string{RoleRead, RoleWrite, RoleLock}, Runtime: true},
	{Name: Crash, Summary: "a test whose recorded run panicked, died of a fatal runtime error or timed out",
		Crash: "the panic, fatal error or hang itself", Roles: []string{RolePanic, RoleFatal, RoleHang}, Runtime: true},
	{Name: TestFailed, Summary: "a test whose recorded run failed (t.Error, t.Fatal) or exited non-zero",
		Crash: "a failed test", Roles: []string{RoleFail, RoleExit}, Runtime: true},
	{Name: Race, Summary: "a data race: accesses of different goroutines to one location, one a write, that happens-before does not order",
		Crash: "a torn or stale value, or any of the crashes above when the value is used",
		Roles: []string{RoleRead, RoleWrite, "atomic-read", "atomic-write"}, Runtime: true},
	{Name: Limit, Summary: "an analysis that stopped at a budget and may have missed bugs", Static: true},
}, unicornKinds()...)

func unicornKinds() []Kind {
	ks := make([]Kind, UnicornPatterns)
	for i := range ks {
		p := strconv.Itoa(i + 1)
		ks[i] = Kind{Name: Unicorn(i + 1), Runtime: true,
			Summary: "Unicorn access pattern p" + p + ", ranked by how much more often failing runs show it than passing ones"}
	}
	return ks
}

// Kinds returns the catalog: every kind of finding, in a stable order.
func Kinds() []Kind { return append([]Kind(nil), catalog...) }

// Lookup returns the kind named name.
func Lookup(name string) (Kind, bool) {
	for _, k := range catalog {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Valid reports whether name is a kind of the catalog.
func Valid(name string) bool {
	_, ok := Lookup(name)
	return ok
}

// RuntimeKinds returns the kinds precog test reports.
func RuntimeKinds() []Kind {
	var ks []Kind
	for _, k := range catalog {
		if k.Runtime {
			ks = append(ks, k)
		}
	}
	return ks
}
