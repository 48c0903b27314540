// Package freshcalls: a client's send method fills and reads the client's
// files, and only then starts the goroutines that handle the peer's
// messages, which replace the files; several tests each make their own
// client and call send on it once, directly, from a goroutine of their
// own or with a go statement. Each call of send has a client no other
// call has, so the files one call fills belong to another client than the
// goroutines another call started: silent, whether the client is a
// composite literal or comes from a constructor (one that returns nil
// with an error, too), and whether the goroutine replaces the files five
// calls down from an entry that hands its receiver to a closure. So for
// a test that fills a new agent itself before it calls the method that
// starts the agent's goroutine, in two tests. Near misses, reported: one
// package-level client that two tests use, a constructor that hands out
// a cached client, one client sent on by two goroutines, one client sent
// on in each turn of a loop, and the files filled after the go
// statement.
package freshcalls
