// Package waitlog is the RIGHT version of the tlogafter kernel: a test
// logs, from a goroutine it starts, the events a watcher delivers, and
// waits for that goroutine before it returns, so no t.Logf can run after
// the test ends. Neither precog vet nor precog test may report it.
package waitlog

// Events delivers names on a channel from a goroutine of its own, and
// closes the channel after the last.
func Events(names ...string) <-chan string {
	ch := make(chan string)
	go func() {
		for _, n := range names {
			ch <- n
		}
		close(ch)
	}()
	return ch
}
