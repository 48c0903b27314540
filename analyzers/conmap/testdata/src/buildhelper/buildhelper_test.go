package buildhelper

import (
	"sync"
	"testing"
)

func testMessage(t *testing.T, opts ...Option) *Msg {
	t.Helper()
	m := New(opts...)
	m.From("a@example.com")
	m.Subject("test")
	return m
}

func TestSendEach(t *testing.T) {
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		msg := testMessage(t, WithCharset("ascii"))
		go func() {
			defer wg.Done()
			Send(msg)
		}()
	}
	wg.Wait()
}

func TestResend(t *testing.T) {
	msg := testMessage(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Send(msg)
	}()
	msg.ReplyTo("b@example.com")
	<-done
}

func TestNoAddress(t *testing.T) {
	msg := New()
	msg.addr = nil
	if msg.Sender() != "" {
		t.Error("a sender without addresses")
	}
}
