// Package lockwrap is OSCS through lock helpers (bench/RESULTS.md, "OSCS
// through lock wrappers"): many packages wrap their mutex in helper
// methods, as pterm's spinner, pebble, badger, serf, pq, nats-server and
// buntdb do,
//
//	func (s *Spinner) lock()   { s.mu.Lock() }
//	func (s *Spinner) unlock() { s.mu.Unlock() }
//
// and call s.lock(); ...; s.unlock() in every operation. Recorded at the
// helpers' own lines, every critical section of a type would begin in
// lock and end in unlock: no section would be one function's, and all
// would share one Lock site, so OSCS could neither drop a pair of whole
// operations nor name the operations in its findings. The instrumenter
// records a helper's lock operation at the site of the helper's call
// (pipeline/rewrite's LockHelpers), so each section is its caller's, as
// it is without the helpers.
//
// Spinner (spinner.go) is the negative control, pterm's spinner: each
// critical section is a whole operation, and precog test must report
// nothing, as it reports nothing for the same code calling s.mu.Lock and
// s.mu.Unlock itself (before the helpers' calls carried the sites, it
// reported the text against the animation and the flag against Stop).
//
// Seats (seats.go) is the positive control, seatclaim's check-then-act
// across two locked calls, its lock taken through a helper of a helper
// that reaches it through a field of a field: Claim checks with Get and
// then acts with Set, and the box office's Set between them is
// overwritten. precog test reports it at Get's and Set's lines (before,
// at the helper's).
package lockwrap
