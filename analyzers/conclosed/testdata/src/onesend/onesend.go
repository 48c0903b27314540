// Package onesend: tests that start a goroutine which sends its result
// once, receive it, and close the channel (go-commons-pool's deque tests):
// the receive can only have taken that one send, so the send came before
// the close, silent. A goroutine that sends twice, two goroutines sending
// once each with one receive, and a close before the receive are
// reported.
package onesend

// Take returns a value.
func Take() int { return 1 }
