package atomiccfg

import (
	"testing"
	"time"
)

// run stores a configuration, then reads it on one goroutine while
// another drops it 20 milliseconds later.
func run(t *testing.T, get func(*Client) string) {
	c := &Client{}
	c.cfg.Store(&Config{Addr: "db:5432"})
	done := make(chan string, 2)
	go func() { done <- get(c) }()
	go func() { time.Sleep(20 * time.Millisecond); c.Drop(); done <- "" }()
	if <-done+<-done == "" {
		t.Log("dropped first")
	}
}

func TestAddr(t *testing.T)     { run(t, (*Client).Addr) }
func TestAddrOnce(t *testing.T) { run(t, (*Client).AddrOnce) }
