// Package controls holds the safe variants of the runtime kernels: the same
// shapes (a nil store and a check-then-use, a goroutine started before an
// initialization, a close and a send, concurrent map stores, a shared buffer
// index, Add and Done, a goroutine that logs to its test) made correct by a
// mutex, a WaitGroup, a channel, sync.Once, sync/atomic, publication before
// the go statement, or goroutine-local data. No interleaving crashes them,
// and a predictive checker must report nothing here.
package controls
