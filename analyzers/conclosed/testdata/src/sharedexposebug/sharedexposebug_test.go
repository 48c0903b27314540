package sharedexposebug

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
	exposed := Expose(func(int) { closeFirst(c) })
	t.Run("a", func(t *testing.T) {
		t.Parallel()
		if err := Run(With(context.Background()), exposed); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("b", func(t *testing.T) {
		t.Parallel()
		if err := Run(With(context.Background()), exposed); err != nil {
			t.Fatal(err)
		}
	})
}
