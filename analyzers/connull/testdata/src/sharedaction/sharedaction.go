// Package sharedaction is the shape of chromedp's newTarget under parallel
// subtests: each subtest makes its own Ctx and runs on it one action that
// the parent test made with a constructor (Func, and the generic Expose
// over it) that other code calls too. What the action's closure captured
// is what this call passed, not what Watch's call did (a closure that
// captures a Ctx), so the subtests were handed no Ctx and each reads and
// clears its own params. Run is in the test file, as in sharedactionbug,
// whose report is in the package's test variant only.
package sharedaction

import "context"

// Params are what a Ctx's first target is made with.
type Params struct{ id int }

// Ctx is made by With, one per call.
type Ctx struct {
	params *Params
	done   chan struct{}
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
	return context.WithValue(parent, key{}, &Ctx{params: &Params{}, done: make(chan struct{})})
}

// Action is run on a context.
type Action func(ctx context.Context) error

// Func wraps f as an Action.
func Func(f func(ctx context.Context) error) Action {
	return func(ctx context.Context) error { return f(ctx) }
}

// Expose wraps fn, through Func, as an Action.
func Expose[A any](fn func(A)) Action {
	return Func(func(ctx context.Context) error {
		var a A
		fn(a)
		return nil
	})
}

// Watch is another caller of Func, whose closure captures a Ctx.
func Watch(c *Ctx) Action {
	return Func(func(ctx context.Context) error {
		<-c.done
		return nil
	})
}
