// Package trace is precog's trace format: the events that the shim records
// in a test process, written by the shim and read by precog's checkers. It
// is shared by both sides, as the Go runtime's internal/trace/tracev2 is,
// so that the format is defined once.
//
// The package uses only the standard library and compiles at language
// version go1.22, because precog injects it, with the shim, into the build
// of the code under test.
//
// # Wire format (version 17)
//
// All integers are unsigned LEB128 varints ("uvarint", as
// encoding/binary's); signed ones are zigzag-coded first (-1 -> 1, 1 -> 2).
// A string is a uvarint byte length, at most MaxStringLen, then its bytes.
//
// A file starts with a header: the bytes "precog trace\n", the uvarint
// Version, the test name and the package path as strings, the start time
// in Unix nanoseconds and the process id (see Header), the CRC-32 (IEEE)
// of all these bytes as 4 little-endian bytes, zero bytes up to a file
// offset that is a multiple of 8, then the state block: the extent, the
// State and the cut as little-endian 64-bit words (see "Completeness").
//
// Then come batches, until the end of the file. A batch holds events of
// one goroutine in the order the goroutine recorded them: the byte 'B', the
// uvarint logical id of the goroutine, the goroutine's place in the order
// when the batch starts (the uvarint seq of its last sync event and the
// uvarint count of events without seq after it, both 0 for a goroutine's
// first batch; see "Order"), the byte length L of the events as 4
// little-endian bytes (at most MaxBatchLen; a fixed width, so that a
// writer can rewrite it with one store as it appends), then L bytes of
// events. L is always exact: the events
// of a batch end exactly L bytes after its header. A batch can be read
// without the batches before it.
//
// The batches of one goroutine appear in its program order; batches of
// different goroutines interleave in any order. Where a batch should start,
// a run of zero bytes is padding and is skipped: a writer that gives each
// goroutine a region of the file (the shim's memory-mapped output) leaves
// the unused rest of each region zero, so several batches may end short of
// their region, followed by padding, and the file may end in padding. The
// end of the file inside padding is a clean end, at or after the extent.
//
// An event is its Kind byte, then its fields in the order of the event
// table (see Kind): sync events start with their seq, coded as the
// difference to the goroutine's previous seq (for the first one in a batch,
// the seq in the batch header), which makes it one or two bytes where the
// absolute number would take three or four; the difference is 0 only for
// an atomic load (see "Order").
// Addresses are coded as the zigzag difference to the previous address in
// the same batch, whichever event it belonged to (again 0 before the
// first), because a goroutine's accesses cluster around a few objects.
// An address field (fAddr, the plain form's) holds that difference plus
// one, and 0 for the address 0, which does not become the previous
// address: a select that took its default case, a time.Sleep and the
// other events without an object take one byte for it, and the event
// after them is coded against the address before them (pond's workers
// poll with a select at every task: 7.5% fewer bytes for the events of its
// TestSubpoolStopAndWait than when the address 0 was coded against the
// last object and the next object against 0).
// Everything else is a plain uvarint. Reads and writes, the most frequent
// events, have a compact form of their own (below), which the writers of
// this package use for every read and write: a typical one of a heap
// variable takes 3 to 5 bytes.
//
// # Compact reads and writes
//
// A byte of 0x80 or more where an event starts is an EvRead or EvWrite in
// the compact form (kinds are below 0x80): bit 0x40 is set for a write;
// bit 0x20 says that the address difference is a multiple of 8 and coded
// divided by 8; the low 5 bits are the low 5 bits of the site. Then come
// the rest of the site (site >> 5) as a uvarint, the zigzag address
// difference (divided by 8 if bit 0x20 is set), and, for a write, its
// value. The plain form (the kind byte, then the fields of the event
// table) is still read. Nearly all of a program's accesses are to
// 8-byte-aligned differences, and its sites below 4096: the kind shares a
// byte with the site's low bits, and the difference loses three zero
// bits, so a read at such a site 8 to 512 bytes from the previous address
// takes 3 bytes where the plain form takes 4 or 5 (raft's tests: 25% fewer
// bytes for accesses).
//
// # Compact atomics
//
// A byte from 0x60 to 0x7f where an event starts is an EvAtomicLoad or
// EvAtomicStore in a compact form of its own: bit 0x10 is set for a
// store; bit 0x08 says that the address difference is a multiple of 8 and
// coded divided by 8; the low 3 bits are the low 3 bits of the site. Then
// come the seq difference (as for any sync event), the rest of the site
// (site >> 3) as a uvarint, the zigzag address difference (divided by 8 if
// bit 0x08 is set; any address, 0 included, becomes the previous one, as
// for reads), and the value. The writers of this package use it for every
// atomic; the plain form is still read. Atomics were 31% of pond's trace
// and 93% of x/sync/syncmap's, at 6 to 9 bytes each: the kind's byte
// shared with the site's low bits and the aligned difference take 11% to
// 15% of their bytes off (bench/RESULTS.md, reccost28). The range leaves
// every kind and the batch's 'B' below it.
//
// # Order
//
// Sync events (every kind but the accesses and function entries and exits)
// take a seq from a counter shared by all goroutines, starting at 1: their
// seqs are unique and order them globally. A goroutine's seqs increase.
// Access and function events are too frequent to take the counter; the
// reader gives them the seq of the last sync event of the same goroutine
// before them (0 if there is none yet) and a Sub counting the events since
// that sync event from 1, taking both from the batch header for the events
// before the batch's first sync event. Sync events have Sub 0.
//
// The exception is EvAtomicLoad: an atomic load orders nothing after it
// for another goroutine, so it reads the counter without incrementing it
// (an increment by every goroutine's loads would move the counter's cache
// line between the cores at every load) and records the value, the seq of
// the last sync event any goroutine took before the load. Its seq may be
// another goroutine's sync event's, or its own goroutine's last; it never
// comes before its goroutine's last. The reader places it like an access
// after that seq: at (seq, 1) if the seq is new to its goroutine, else at
// the goroutine's next Sub, and the events after it count on from there.
// A load at (s, n) came after the sync event with seq s and before the one
// with seq s+1 (the counter's order), which is what any checker may take
// from the order. The shim's loads under control take a new seq as every
// other sync event does, and read back at (seq, 1). So:
//
//   - within one goroutine, (Seq, Sub) increases strictly in program order;
//     a run of a goroutine's events with one Seq may hold atomic loads;
//   - events of different goroutines are ordered only through sync events:
//     sorting by (Seq, Sub, Goroutine) gives a total order that respects
//     every goroutine's program order and the seq order, and is the order
//     ReadAll returns. Between an access and the events of other goroutines
//     with no sync event in between, that order says nothing about what
//     happened first.
//
// Since a batch's header gives its goroutine's place, no event of a batch
// comes before (Seq, Sub) of its header in that order: OrderedReader
// yields the global order from a file without holding it, by indexing the
// batches in one pass and merging them in a second, opening each batch
// when the merge reaches its header's place. ReadAll is built on it.
//
// The shim gives every goroutine of a process a logical id of its own. A
// writer may still start a goroutine again under the id of one that has
// ended (control's tests do, so that a plan names the same goroutines in
// every run): since every batch carries its goroutine's place, the reader
// needs nothing else to read the batches of both, and an EvBegin tells
// where the second one starts.
//
// # Crashes
//
// A trace must survive the crash of the process that writes it. The shim
// writes events straight into the memory-mapped file and commits each one
// by rewriting its batch's length field, in one store, after appending it;
// whatever was committed when the process died is in the file. So a batch
// may be followed, before the padding or the next batch, by up to
// MaxUncommitted events that were appended but never committed, the last
// of them possibly cut anywhere with zeros after it (the padding it was
// written into). The reader skips them; they are not part of the trace.
// A writer without a mapping (the shim elsewhere) writes whole batches with
// one write(2) each instead, so a process killed at any point leaves whole
// batches followed by at most one cut one.
//
// # Completeness
//
// A reader must tell a trace whose process ended normally from one whose
// process died, and both from a file that lost its end, although all three
// may end in padding. The header's state block says so; a writer that
// maps the file updates each of its words with one aligned store:
//
//   - the extent is where the space the writer has handed out ends (the
//     end of the last chunk it gave a goroutine), 0 if unknown. A file
//     that ends before its extent was cut: the reader returns the events
//     before the cut, then "broken trace: file cut, N of its M bytes
//     missing at offset K", whatever the bytes before the cut look like;
//   - the State is Recording while the process's tests run, Ended when
//     every test it started has returned (a test that panics does not end
//     it: its process dies), and Stopped, for good, when the writer gave
//     up because the file could not grow: the reader then ends in "broken
//     trace: recording stopped early"; or Limited, for good, when the
//     writer stopped before the file would grow past the size limit it
//     was given: the reader then ends in an error wrapping ErrBroken and
//     ErrLimited;
//   - the cut, for a writer that stopped early, is the seq counter's value
//     when it stopped: every sync event with a seq up to it was committed
//     (a goroutine makes room for an event before it takes a seq, and
//     writes where it made room), and the goroutines that went on writing
//     into the chunks they held until they noticed the stop may have
//     committed events after it. OrderedReader ends the events before the
//     first one with a seq past the cut, so that what it returns of a
//     stopped trace is a consistent prefix of the run: no goroutine's
//     event after the cut, which another goroutine's missing event (a
//     release, a send) would have ordered. 0 is unknown: a writer without
//     a mapping writes its batches out, and stops, at their next sync
//     event, so it has no such seq.
//
// So a trace of a process that died reads to a clean end in state
// Recording, with every event committed before the death. A writer
// without a mapping knows no extent while it records (a cut of its file
// reads like a death), and writes it when the tests end. precog trims the
// zero tail of a trace after its process exits (Trim) and lowers the
// extent with it. A trace written whole (AppendHeader) says Ended with no
// extent.
//
// Version 3 traces had no checksum and no state block, version 4 no
// EvMapMake, version 5 no synctest events, version 6 no EvClock or
// EvSyncWait, version 7 no sync.Pool events, version 8 no compact reads
// and writes and a uvarint batch length, version 9 no elem in channel
// events, versions 10 to 17 what Version lists (12: an atomic load's seq
// always new, its delta never 0; 13: no cut; 14: no EvMark or EvAfter; 15:
// no compact atomics; 16: no EvCreator or EvRan; 17: no EvNew); this
// package refuses them,
// and any other version, with an
// error that names it.
//
// # Damage
//
// A trace is read up to the first damage: a cut, a length past the end of
// its batch or beyond a limit, an unknown kind, a bad varint, a field out
// of range, a seq that does not increase (or, for an atomic load, decreases), an event count after a seq that
// overflows, a non-zero byte other than 'B'
// where a batch should start (except the uncommitted events above). Every
// event before the damage is returned, including the whole events at the
// start of a cut batch, then an error "broken trace: <what> at offset N", N
// being the byte offset in the file where the unreadable data starts.
//
// # Text form
//
// Event.String and ParseText use a text form, one event per line, for
// precog trace dump and for golden files in tests. The text form has a
// version of its own, 1, which the wire format's changes have not touched.
// The first line is the header:
//
//	precog trace v1 test="TestTransfer" package="example.com/bank" start=2025-01-02T15:04:05.000000006Z pid=4242
//
// Each event line is the seq ("Seq" for sync events, "Seq.Sub" for the
// others), the goroutine, the kind, then the kind's fields as key=value in
// table order:
//
//	7 g=1 Lock site=3 addr=0xc000012340
//	7.1 g=1 Read site=4 addr=0xc000012348
//	7.2 g=1 Write site=5 addr=0xc000012348 value=42
//	8 g=1 Unlock site=6 addr=0xc000012340
//	9 g=2 Select site=9 case=-1 addr=0x0 ok=true
//	10 g=2 TestStart name="TestTransfer/empty"
//	11 g=2 TestEnd outcome=fail
//
// Addresses are hexadecimal, strings Go-quoted, ok is true or false,
// outcome is pass, fail, panic or skip, every other number decimal. With a
// site table, a site is followed by its position: site=3(bank.go:31:5).
// ParseText ignores the positions, blank lines and lines starting with #.
package trace
