package sharedactionbug

import (
	"context"
	"testing"
)

// Run runs a on the Ctx of ctx, which it closes first.
func Run(ctx context.Context, a Action) error {
	closeFirst(From(ctx))
	return a(ctx)
}

// closeFirst closes c.done the first time it runs on c.
func closeFirst(c *Ctx) {
	if c.first {
		c.first = false
		close(c.done) // want `close of closed channel: c.done may also be closed by closeFirst`
	}
}

func TestWatch(t *testing.T) {
	ctx := With(context.Background())
	_ = Run(ctx, Watch(From(ctx)))
}

func TestShared(t *testing.T) {
	c := From(With(context.Background()))
	act := Func(func(context.Context) error {
		closeFirst(c)
		return nil
	})
	t.Run("a", func(t *testing.T) {
		t.Parallel()
		if err := Run(With(context.Background()), act); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("b", func(t *testing.T) {
		t.Parallel()
		if err := Run(With(context.Background()), act); err != nil {
			t.Fatal(err)
		}
	})
}
