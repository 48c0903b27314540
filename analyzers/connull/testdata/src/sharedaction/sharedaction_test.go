package sharedaction

import (
	"context"
	"testing"
)

// Run runs a on the Ctx of ctx, after its first target.
func Run(ctx context.Context, a Action) error {
	newTarget(From(ctx))
	return a(ctx)
}

// newTarget uses c.params once, for c's first target.
func newTarget(c *Ctx) int {
	id := 0
	if c.params != nil {
		id = c.params.id
		c.params = nil
	}
	return id
}

func TestWatch(t *testing.T) {
	ctx := With(context.Background())
	_ = Run(ctx, Watch(From(ctx)))
}

func TestOwn(t *testing.T) {
	act := Func(func(context.Context) error { return nil })
	exposed := Expose(func(int) {})
	t.Run("a", func(t *testing.T) {
		t.Parallel()
		if err := Run(With(context.Background()), act); err != nil {
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
