package trace

import "strconv"

// Kind is the kind of an event. Its value is the byte that starts the event
// on the wire, so the constants below must never be renumbered: a new kind
// takes a new number and a new Version.
type Kind uint8

// The event table. Each comment says when the shim records the event, then
// lists the event's fields in square brackets in their wire order. Fields
// marked * are omitted on the wire and implicit (see "Order" in the package
// doc); every other event has an explicit seq. An event's fields land in the
// Event struct as follows: site in Site; addr (of the mutex, wait group,
// once, cond, channel, map, variable or task group) in Addr; value, cap, ok,
// epoch and outcome in Value; delta and case in Arg; child, parent and elem
// in Peer; name in Name. A channel event's elem is a 32-bit fingerprint of
// the element sent or received (ElemWord in the shim), never 0 when
// known, 0 when the shim could not see the element: hb pairs a receive
// with the earliest unpaired send of the same elem.
const (
	evNone Kind = iota // never on the wire: a zero byte where an event should start is damage

	// Goroutines.
	EvFork  // parent, before a go statement starts the child [seq, site, child]
	EvBegin // child, first event of its goroutine; parent is the goroutine whose go statement (EvFork) or testing.T.Run (no EvFork) started it, or NoParent [seq, parent]
	EvEnd   // goroutine returns (deferred; also recorded on panic) [seq]

	// Mutexes and RWMutexes.
	EvLock    // after Lock (Mutex) or Lock (RWMutex) acquired it [seq, site, addr]
	EvUnlock  // before Unlock releases it [seq, site, addr]
	EvRLock   // after RLock acquired a read lock [seq, site, addr]
	EvRUnlock // before RUnlock releases a read lock [seq, site, addr]
	EvTryLock // after TryLock, TryRLock or a RWMutex's TryLock returned; ok 1 if it acquired [seq, site, addr, ok]

	// WaitGroup, Once, Cond.
	EvWGAdd         // before Add; delta may be negative [seq, site, addr, delta]
	EvWGDone        // before Done [seq, site, addr]
	EvWGWait        // after Wait returned [seq, site, addr]
	EvOnceDo        // after Do returned, whether or not it ran f [seq, site, addr]
	EvCondWait      // after Wait returned (the lock is held again) [seq, site, addr]
	EvCondSignal    // before Signal [seq, site, addr]
	EvCondBroadcast // before Broadcast [seq, site, addr]

	// sync/atomic.
	EvAtomicLoad  // after a load, with the value read; its seq is the counter's value, not incremented (see "Order" in the package doc) [seq, site, addr, value]
	EvAtomicStore // after a store, swap, add or successful compare-and-swap, with the new value [seq, site, addr, value]

	// Channels. addr is the runtime channel pointer.
	EvChanMake  // after make(chan T, cap) [seq, site, addr, cap]
	EvChanSend  // before the send, which may block: a receive of the value always has a larger seq [seq, site, addr, elem]
	EvChanRecv  // after the receive returned; ok 0 if the channel was closed and empty [seq, site, addr, ok, elem]
	EvChanClose // before close [seq, site, addr]
	EvSelect    // first thing in the select case that ran; case -1 is default, whose addr is 0; ok 0 if a receive case found the channel closed; elem that of the case's element [seq, site, case, addr, ok, elem]

	// Memory accesses and function entry and exit: frequent, so they carry no seq.
	EvRead      // before a read of a shared variable [*seq, site, addr]
	EvWrite     // after a write, with the value word: 0 or 1 (nil or not) for pointer-shaped values, the bits of scalars up to 8 bytes [*seq, site, addr, value]
	EvMapRead   // before a map index or lookup [*seq, site, addr]
	EvMapWrite  // before a map assignment or delete [*seq, site, addr]
	EvMapIter   // before a range over a map [*seq, site, addr]
	EvFuncEnter // first thing in an instrumented function [*seq, site]
	EvFuncExit  // an instrumented function returns (deferred) [*seq, site]

	// Tests and the garbage collector.
	EvTestStart // first thing in a test or subtest function [seq, name]
	EvTestEnd   // the test's cleanup runs; outcome 0 pass, 1 fail, 2 panic, 3 skip [seq, outcome]
	EvGCEpoch   // the first event of any goroutine after a garbage collection finished, before that event; addresses recorded before it may be reused after it [seq, epoch]

	// Task groups (errgroup, conc, WaitGroup.Go): modeled as fork and join.
	EvTaskGo   // a task is handed to the group; child is the task's goroutine [seq, site, addr, child]
	EvTaskWait // after the group's Wait returned: every task of the group has ended [seq, site, addr]

	// Contexts.
	EvCancel // before a context's cancel function is called, which closes the context's Done channel where nothing is recorded; addr is the function value [seq, site, addr]

	// Allocations.
	EvMapMake // after make(map) or a map literal made a map at addr: accesses to addr after it are to a new map, even if an earlier map, freed since, had the address [seq, site, addr]

	// testing/synctest bubbles (issue 15). value is the time time.Now
	// returned, in nanoseconds since 1970: inside a bubble that is the
	// bubble's virtual clock.
	EvBubble   // first thing in the function synctest.Test or synctest.Run runs, on the bubble's root goroutine; addr is 0 [seq, site, addr, value]
	EvSleep    // before time.Sleep blocks, with the clock at the call inside a bubble (0 outside one); addr is 0 [seq, site, addr, value]
	EvWake     // after time.Sleep returned, with the clock at the return inside a bubble (0 outside one); addr is 0 [seq, site, addr, value]
	EvClock    // a bubble goroutine read the clock just before an operation that may block it durably (channel operation, select, WaitGroup.Wait, Cond.Wait) or its end, or just after such an operation returned at a later time; addr is 0 [seq, site, addr, value]
	EvSyncWait // after synctest.Wait returned: every other goroutine of the bubble is durably blocked or ended; addr is 0 [seq, site, addr, value]

	// sync.Pool. addr is the object: the data word of the interface value
	// put or got; value is the address of the Pool.
	EvPoolPut // before Put hands the object to the pool; also before a write on a TCP connection or an io.Pipe sends its bytes, or its writer closes it, addr the direction and value the write's or close's token (shim/rtnet, shim/rtpipe) [seq, site, addr, value]
	EvPoolGet // after Get returned the object (taken from the pool or made by New; addr 0 for nil); also after a read on a TCP connection or an io.Pipe got a byte of the write whose token value is, or found the end of the stream its close released (shim/rtnet, shim/rtpipe) [seq, site, addr, value]

	// Ancestry.
	EvBelow   // child, right after the EvBegin (parent=none) of a goroutine that code precog does not instrument started: parent is the goroutine's nearest ancestor that the shim records, which began before the child was started [seq, parent]
	EvMark    // the goroutine's first mark at the site: before a call into a package that code precog does not instrument and that may start goroutines, before the call's function value and arguments are evaluated; or its first handing of the function literal at the site to such a package, after the literal was evaluated (shim.Hand) [seq, site]
	EvAfter   // child, after its EvBelow: the goroutine was created during a call made from the line of parent's mark at site (parent is its creator), so after that mark; or, anywhere among the goroutine's events, before its first run of a literal that parent handed at site (shim.Handed), so after parent's first handing there [seq, site, parent]
	EvCreator // child, after its EvBegin (parent=none) and the EvBelow and EvAfter that follow it: one per package up the chain of its creation, innermost first, each naming the package's innermost function there as the runtime does ("net/http.(*Server).Serve"; FuncPackage reads its package): the goroutine's creator (its stack's "created by" line), then the functions of its creators' stacks at their go statements (the "[originating from goroutine N]" sections of GODEBUG=tracebackancestors); at most MaxCreators, each cut to MaxCreatorLen bytes [seq, name]

	// Subtests.
	EvRan // a test's goroutine, after its t.Run (or b.Run) returned: the subtest ended, or called t.Parallel; what the goroutine does from here comes after the subtest's events, which detect/hb orders before the test's next event when the test recorded nothing while the subtest ran (the accesses that follow a call carry the seq of their goroutine's last sync event, and without it those after t.Run carried one from before it); addr is 0 [seq, site, addr]

	// Allocations of structs.
	EvNew // after &T{...} or new(T) of a struct type T made an object at addr of size bytes, in instrumented code: accesses to [addr, addr+size) after it are to a new object, whatever object had the addresses before [seq, site, addr, size]

	numKinds
)

// NoParent is the parent in the EvBegin of a goroutine that no instrumented
// go statement or task started: the main goroutine, a test's goroutine, or
// one that the runtime or uninstrumented code started. No logical id is
// NoParent. The text form writes it as parent=none. The exception is a
// subtest whose goroutine testing.T.Run started for uninstrumented code
// (testify's suite.Run): its parent is the goroutine that called Run,
// blocked there until the subtest ends or calls t.Parallel, and no EvFork
// of the parent names it.
const NoParent = 1<<64 - 1

// Outcome is how a test ended, the value of an EvTestEnd event.
type Outcome uint8

// Test outcomes.
const (
	Pass Outcome = iota
	Fail
	Panic // the test panicked; the shim saw the panic in the test's cleanup
	Skip
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"pass", "fail", "panic", "skip"}

func (o Outcome) String() string {
	if o < numOutcomes {
		return outcomeNames[o]
	}
	return "outcome(" + strconv.Itoa(int(o)) + ")"
}

// An Event is one decoded event. Which fields are set depends on Kind: see
// the event table above. Fields a kind does not have are zero.
type Event struct {
	Kind Kind
	Site uint32 // the instrumented point that recorded it; 0 for kinds without a site
	// Goroutine is the logical id of the goroutine that recorded the event,
	// the id of the batch it came in.
	Goroutine uint64
	// Seq and Sub place the event in the global order, which is the order
	// of (Seq, Sub, Goroutine); see "Order" in the package doc. Sync events
	// have their own Seq and Sub 0 (but for atomic loads, whose Seq need not
	// be their own and whose Sub is not 0); access and function events have
	// the Seq of their goroutine's last sync event before them, and Sub
	// counting from 1 the events since that one.
	Seq, Sub uint64
	Addr     uint64
	Value    uint64
	Arg      int64
	Peer     uint64
	Name     string
}

// IsSync reports whether events of kind k carry a seq on the wire (their
// own, but for an atomic load's: see "Order" in the package doc). Only sync
// events order goroutines against each other.
func (k Kind) IsSync() bool {
	return k != evNone && k < numKinds && !kinds[k].implicit
}

func (k Kind) String() string {
	if k != evNone && k < numKinds {
		return kinds[k].name
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// A field is one of an event's fields: how it is encoded, where it goes in
// Event and what it is called in the text form.
type field uint8

const (
	fSite    field = iota // uvarint, at most 1<<32-1 -> Site
	fAddr                 // 0 for the address 0, else 1 + the zigzag difference to the batch's previous address, as a uvarint -> Addr
	fValue                // uvarint -> Value
	fCap                  // uvarint -> Value
	fEpoch                // uvarint -> Value
	fOK                   // uvarint 0 or 1 -> Value
	fOutcome              // uvarint below numOutcomes -> Value
	fDelta                // zigzag uvarint -> Arg
	fCase                 // zigzag uvarint, at least -1 -> Arg
	fChild                // uvarint -> Peer
	fElem                 // uvarint, at most 1<<32-1 -> Peer
	fParent               // uvarint -> Peer
	fName                 // uvarint length, then that many bytes -> Name
	fSize                 // uvarint -> Value
	numFields
)

// fieldKeys are the fields' names in the text form.
var fieldKeys = [numFields]string{
	fSite: "site", fAddr: "addr", fValue: "value", fCap: "cap", fEpoch: "epoch", fOK: "ok",
	fOutcome: "outcome", fDelta: "delta", fCase: "case", fChild: "child", fElem: "elem", fParent: "parent", fName: "name", fSize: "size",
}

// kindSpec describes a kind for the decoder and the text form. The seq of
// sync events is not listed: it always comes first.
type kindSpec struct {
	name     string
	implicit bool // no seq on the wire
	fields   []field
}

var kinds = [numKinds]kindSpec{
	EvFork:          {name: "Fork", fields: []field{fSite, fChild}},
	EvBegin:         {name: "Begin", fields: []field{fParent}},
	EvEnd:           {name: "End"},
	EvLock:          {name: "Lock", fields: []field{fSite, fAddr}},
	EvUnlock:        {name: "Unlock", fields: []field{fSite, fAddr}},
	EvRLock:         {name: "RLock", fields: []field{fSite, fAddr}},
	EvRUnlock:       {name: "RUnlock", fields: []field{fSite, fAddr}},
	EvTryLock:       {name: "TryLock", fields: []field{fSite, fAddr, fOK}},
	EvWGAdd:         {name: "WGAdd", fields: []field{fSite, fAddr, fDelta}},
	EvWGDone:        {name: "WGDone", fields: []field{fSite, fAddr}},
	EvWGWait:        {name: "WGWait", fields: []field{fSite, fAddr}},
	EvOnceDo:        {name: "OnceDo", fields: []field{fSite, fAddr}},
	EvCondWait:      {name: "CondWait", fields: []field{fSite, fAddr}},
	EvCondSignal:    {name: "CondSignal", fields: []field{fSite, fAddr}},
	EvCondBroadcast: {name: "CondBroadcast", fields: []field{fSite, fAddr}},
	EvAtomicLoad:    {name: "AtomicLoad", fields: []field{fSite, fAddr, fValue}},
	EvAtomicStore:   {name: "AtomicStore", fields: []field{fSite, fAddr, fValue}},
	EvChanMake:      {name: "ChanMake", fields: []field{fSite, fAddr, fCap}},
	EvChanSend:      {name: "ChanSend", fields: []field{fSite, fAddr, fElem}},
	EvChanRecv:      {name: "ChanRecv", fields: []field{fSite, fAddr, fOK, fElem}},
	EvChanClose:     {name: "ChanClose", fields: []field{fSite, fAddr}},
	EvSelect:        {name: "Select", fields: []field{fSite, fCase, fAddr, fOK, fElem}},
	EvRead:          {name: "Read", implicit: true, fields: []field{fSite, fAddr}},
	EvWrite:         {name: "Write", implicit: true, fields: []field{fSite, fAddr, fValue}},
	EvMapRead:       {name: "MapRead", implicit: true, fields: []field{fSite, fAddr}},
	EvMapWrite:      {name: "MapWrite", implicit: true, fields: []field{fSite, fAddr}},
	EvMapIter:       {name: "MapIter", implicit: true, fields: []field{fSite, fAddr}},
	EvFuncEnter:     {name: "FuncEnter", implicit: true, fields: []field{fSite}},
	EvFuncExit:      {name: "FuncExit", implicit: true, fields: []field{fSite}},
	EvTestStart:     {name: "TestStart", fields: []field{fName}},
	EvTestEnd:       {name: "TestEnd", fields: []field{fOutcome}},
	EvGCEpoch:       {name: "GCEpoch", fields: []field{fEpoch}},
	EvTaskGo:        {name: "TaskGo", fields: []field{fSite, fAddr, fChild}},
	EvTaskWait:      {name: "TaskWait", fields: []field{fSite, fAddr}},
	EvCancel:        {name: "Cancel", fields: []field{fSite, fAddr}},
	EvMapMake:       {name: "MapMake", fields: []field{fSite, fAddr}},
	EvBubble:        {name: "Bubble", fields: []field{fSite, fAddr, fValue}},
	EvSleep:         {name: "Sleep", fields: []field{fSite, fAddr, fValue}},
	EvWake:          {name: "Wake", fields: []field{fSite, fAddr, fValue}},
	EvClock:         {name: "Clock", fields: []field{fSite, fAddr, fValue}},
	EvSyncWait:      {name: "SyncWait", fields: []field{fSite, fAddr, fValue}},
	EvPoolPut:       {name: "PoolPut", fields: []field{fSite, fAddr, fValue}},
	EvPoolGet:       {name: "PoolGet", fields: []field{fSite, fAddr, fValue}},
	EvBelow:         {name: "Below", fields: []field{fParent}},
	EvMark:          {name: "Mark", fields: []field{fSite}},
	EvAfter:         {name: "After", fields: []field{fSite, fParent}},
	EvCreator:       {name: "Creator", fields: []field{fName}},
	EvRan:           {name: "Ran", fields: []field{fSite, fAddr}},
	EvNew:           {name: "New", fields: []field{fSite, fAddr, fSize}},
}
