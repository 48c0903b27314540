package syncmapsess

import (
	"testing"
	"time"
)

// run logs a user in, then reads the session on one goroutine while
// another logs out 20 milliseconds later.
func run(t *testing.T, get func(*Store, string) string) {
	s := &Store{}
	s.Login("42", "ann")
	done := make(chan string, 2)
	go func() { done <- get(s, "42") }()
	go func() { time.Sleep(20 * time.Millisecond); s.Logout("42"); done <- "" }()
	if <-done+<-done != "ann" {
		t.Log("logged out first")
	}
}

func TestUser(t *testing.T)     { run(t, (*Store).User) }
func TestUserOnce(t *testing.T) { run(t, (*Store).UserOnce) }
