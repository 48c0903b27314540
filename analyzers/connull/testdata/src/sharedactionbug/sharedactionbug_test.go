package sharedactionbug

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
		id = c.params.id // want `c.params may be nil when dereferenced here: newTarget stores nil to it concurrently`
		c.params = nil
	}
	return id
}

func TestWatch(t *testing.T) {
	ctx := With(context.Background())
	_ = Run(ctx, Watch(From(ctx)))
}

func TestShared(t *testing.T) {
	c := From(With(context.Background()))
	act := Func(func(context.Context) error {
		newTarget(c)
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
