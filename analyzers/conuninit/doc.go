// Package conuninit defines an analyzer that reports reads that another
// goroutine's initialization may not have reached yet: ConMem's Con-UnInit.
//
// # Analyzer conuninit
//
// conuninit: report reads that may run before another goroutine sets them
//
// A goroutine reads a location whose only writes are made by other
// goroutines, and nothing orders a write before the read, so the read
// can see the zero value: a nil pointer, an empty map, a zero timestamp.
// This is the Con-UnInit pattern of ConMem (Zhang et al., TOSEM 2013,
// §4.3). To keep to real initialization bugs, the check reports only the
// two shapes where a `go` statement separates the read from the write:
//
//   - the goroutine reads the location, and the function that starts it
//     writes the location for the first time after the `go` statement
//     (Transmission's h->band, Fig. 7 of the paper);
//   - the goroutine writes the location, and the function that starts it
//     reads it after the `go` statement without waiting for the goroutine
//     (the SPLASH-2 FFT's gEnd).
//
// An HTTP handler registered with ServeMux.HandleFunc counts as started
// at its registration, unless the mux is the function's own (made there
// by http.NewServeMux, used only to register handlers and to build
// net/http/httptest servers): then a request can reach the handler only
// from code given the server or its address, a fresh loopback port, and
// the handler's goroutines start at the first request the function can
// send. A test that sets what its handler reads after starting the server
// but before any code that could send it a request (`m.addr =
// s.Listener.Addr().String(); m.code = code; Get(s.URL)`) is not
// reported. A set after a request (a net/http client call, a go statement
// handed the address, package code that sends one) is, and one after a
// call that is handed the server or its address and is not known to keep
// from sending (a client constructor), or after the address is stored
// where other code can read it, is reported at low confidence (see
// below).
//
// In both, the reader must not write the location itself, no write may be
// ordered before the read (by a channel, a WaitGroup, a sync.Once), and
// the value read must be used as is rather than compared first (code that
// checks for nil or zero expects to see it; so does code that copies a
// struct to a variable and only checks the copy's fields, a poller whose
// zero status means "not ready yet"). A mutex orders them too: when
// the starter holds it in write mode in one critical section from the `go`
// statement (or time.AfterFunc) through the write, outside a loop, and the
// goroutine holds it at the read, the goroutine's critical section begins
// only after the starter's ends, so after the write. So is a read that
// reloads a field a nil check of the same field of the same object found
// set, in one critical section of a mutex the write holds too (`if s.ch !=
// nil { s.ch <- v }` under s's lock): the reload sees what the check saw.
// Reads by goroutines that increment the location (counters) are not
// initialization and are not reported, and neither is the starter's read
// of a copy: a field of a variable that a whole value was stored into
// before the go statement (a parameter passed by value that the goroutine
// takes by pointer, `c := *orig`) holds what its source held, so the
// goroutine's write sets it again, not first.
//
// The check also reports a sync.WaitGroup Done that can run before its
// matching Add, which panics with "sync: negative WaitGroup counter": a
// goroutine calls Done and the function that starts it calls Add only
// after the `go` statement. When that Add is the statement right after
// the `go` statement and adds a constant, the report carries a suggested
// fix that moves it above the `go` statement (go vet -fix and
// golangci-lint --fix apply it); an Add further away, or after a loop of
// `go` statements, may count something else and is left to the author.
//
// It reports a Wait that may return before the work it waits for, too: a
// goroutine calls Add itself (`go func() { wg.Add(1); defer wg.Done();
// ... }()`) and the function that starts it calls Wait after the `go`
// statement without adding to the WaitGroup itself, so Wait can find the
// counter at zero and return at once (go vet's waitgroup check reports
// the Add; this names the Wait, as precog test does). The Wait may be in
// another function too (a server's Start runs `go s.serve()`, serve
// begins with s.wg.Add(1), Stop calls s.wg.Wait()): then every Add to the
// WaitGroup must be made by a goroutine's own function, which also calls
// Done, the Wait must run on a goroutine that may overlap it, and the
// starting function must not wait for anything after the `go` statement
// (a receive, a select, a Wait, in its body or a few calls down), which
// may be the goroutine saying it has added.
//
//	// WRONG
//	h := &Session{}
//	go h.eventLoop() // reads h.band
//	h.band = newBandwidth(h)
//
//	// RIGHT: initialize, then start
//	h := &Session{}
//	h.band = newBandwidth(h)
//	go h.eventLoop()
//
// When the late write is the statement right after the `go` statement,
// sets a variable or field, and its value calls no function (a call could
// wait for the goroutine), the report carries a suggested fix that moves
// it above the `go` statement.
//
// Confidence: a report that rests on an assumption the analysis cannot
// check is shown only under -all (precog vet -all; -conuninit.all under go
// vet -vettool=precog; all: true in golangci-lint), with the assumption in
// its message. A read and a write rest on the assumptions of the other
// checks' pairs about what orders or protects them
// (concurrent.Env.StartAssumption; connull's doc lists them): a sync.Once
// orders the two once the callers in _test.go files are left out, or once
// every goroutine start reached from an importer counts as after the Do; a
// common lock is held wherever the package's own code calls the sides, and
// only a test's call leaves one unlocked; a re-entrant call taken to hold
// a lock it skips; one call of a function taken to run twice on one
// object. Not on those about when two sides run at once (test code beside
// the package's goroutines, a handler of a test serving two requests, a go
// statement run again only through recursion or after a Wait for the
// goroutine before): a report's two sides are a function and the goroutine
// it starts, and the function's own code puts its side after the go
// statement, whoever calls it, so a test that starts a goroutine of the
// package and reads at once what it sets is reported at the default
// confidence. The WaitGroup reports rest on no pair's assumption: they
// pair calls rather than accesses, made by a goroutine and by the function
// that starts it or (a Wait elsewhere) by code that the goroutine analysis
// lets overlap it, and are shown at the default confidence. Two more
// assumptions are this check's own, and a report that rests on one of
// them and on its pair's assumption names both. Of the first shape, with
// a handler on a test server of the function's own: that code handed the
// server or its address, or reading it where the function stored it,
// sends the server no request before the set (every such report and
// silence also takes it that no other process finds the server's port
// first). Of the second shape: the goroutine
// writes a stream into an io.Pipe, sets the location and then closes the
// pipe's writer; the starter hands the pipe's reader to a call and reads
// the location after that call has returned (litefs's backup: `pos` read
// after WriteTx(ctx, name, pr)). A consumer that read the reader to its
// end saw the Close, which io.Pipe orders after the set, so the read is
// ordered if the call returns only after reading to the end, as io.Copy
// into a buffer does; whether it does (an interface method, an HTTP client
// sending the reader as a body) cannot be checked, and the report assumes
// it does not. It takes a set that precedes (dominates) every plain Close
// of the writer, where every CloseWithError it does not precede closes
// with an error known not to be nil (nil ends the stream as Close does); a
// writer that only the goroutine uses, to Write, to close, or handed to
// other code as an interface without a Close method (an encoder's
// io.Writer, which the report then also assumes may close it); and a call
// that precedes (dominates) the read, made with the reader itself as an
// argument, that is no method of the reader, not io.ReadFull,
// io.ReadAtLeast or io.CopyN, and returns nothing that could hold the
// reader (a wrapper such as bufio.NewReader or http.NewRequest returns at
// once). A set after the Close, or only before CloseWithError, a read the
// call does not precede, and a reader that goes elsewhere are reported at
// the default confidence.
//
// Known false-positive shapes: the goroutine waits for the write with
// synchronization the analysis does not model (a condition variable, an
// atomic flag, a sleep); different objects of the same type that the
// analysis cannot tell apart; a read after testing/synctest.Wait of what
// a goroutine of the bubble writes after a call that may block (jrpc2's
// tests: `go func() { _, cerr = c.Call(ctx, "Hang", nil) }()`, then
// s.Stop() and Wait): the goroutine may still be blocked in the call when
// Wait returns, and only the protocol (Stop ends the call) says it is
// not. A write before anything that may block is ordered (see the
// ordering analyzer's synctest.Wait).
//
// To suppress a report, put
//
//	//precog:ignore con-uninit <reason>
//
// on the reported line or the line above, or //nolint:precog.
package conuninit
