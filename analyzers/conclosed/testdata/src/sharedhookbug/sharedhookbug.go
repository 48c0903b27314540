// Package sharedhookbug is sharedaction with a Func that may replace its
// parameter with a hook before its closure captures it: the closure's
// variable then holds the hook, not what the call passed, and the hook
// that the parent test set captured one Ctx, so both parallel subtests may
// close its channel. The want is in the test file: only the package's test
// variant has the subtests.
package sharedhookbug

import "context"

// Ctx is made by With, one per call.
type Ctx struct {
	first bool
	done  chan struct{}
}

type key struct{}

// From returns the Ctx that ctx holds: every Ctx read so is one object,
// the result of ctx.Value.
func From(ctx context.Context) *Ctx {
	c, _ := ctx.Value(key{}).(*Ctx)
	return c
}

// With returns a context that holds a new Ctx.
func With(parent context.Context) context.Context {
	return context.WithValue(parent, key{}, &Ctx{first: true, done: make(chan struct{})})
}

// Action is run on a context.
type Action func(ctx context.Context) error

// hook, when set, replaces what Func wraps.
var hook func(ctx context.Context) error

// Func wraps f, or the hook, as an Action.
func Func(f func(ctx context.Context) error) Action {
	if hook != nil {
		f = hook
	}
	return func(ctx context.Context) error { return f(ctx) }
}
