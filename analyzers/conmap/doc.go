// Package conmap defines an analyzer that reports maps written by one
// goroutine while another may read or write them without a common lock.
//
// # Analyzer conmap
//
// conmap: report maps written concurrently without a common lock
//
// The Go runtime detects some concurrent map accesses and stops the whole
// program with "fatal error: concurrent map writes" or "fatal error:
// concurrent map read and map write", which recover cannot catch. The
// check reports a map write (m[k] = v, delete, clear) when another
// goroutine context may read (m[k]) or write the same map at the same
// time: the accesses can overlap (see the goroutines analyzer), no mutex
// is held at both (in write mode at one of them at least), and no static
// order separates them.
//
// A map iterated with range while another goroutine writes it is reported
// by the con-closed check instead, at the range statement, so that one
// bug gets one diagnostic.
//
//	// WRONG
//	func (r *Resolver) Resolve(host string) []string {
//		r.mu.RLock()
//		addrs, ok := r.cache[host]
//		r.mu.RUnlock()
//		if !ok {
//			addrs = r.lookup(host)
//			r.cache[host] = addrs // no lock: concurrent map writes
//		}
//		return addrs
//	}
//
//	// RIGHT
//	r.mu.Lock()
//	r.cache[host] = addrs
//	r.mu.Unlock()
//
// Known false-positive shapes: maps owned by one goroutine at a time and
// handed over with synchronization the analysis does not model (a
// condition variable, an atomic flag, a hand-written semaphore); and
// different maps held in the same field of different objects, which the
// analysis cannot always tell apart.
//
// To suppress a report, put
//
//	//precog:ignore con-map <reason>
//
// on the reported line or the line above, or //nolint:precog.
package conmap
