package selrace

import (
	"context"
	"testing"
)

func TestSelectSend(t *testing.T) {
	if got := SelectSend(ctx(t), 20000); got != 20000 {
		t.Fatalf("got %d", got)
	}
}

func TestSelectRecv(t *testing.T) {
	if got := SelectRecv(ctx(t), 20000); got != 20000 {
		t.Fatalf("got %d", got)
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return c
}
