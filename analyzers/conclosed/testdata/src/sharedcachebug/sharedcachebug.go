// Package sharedcachebug is sharedexposebug with a Func that returns the
// first closure it made to every later call: the action that Expose's
// call returns is the closure that the parent test's first Func call
// made, which captured one Ctx, so both parallel subtests may close its
// channel. The want is in the test file: only the package's test variant
// has the subtests.
package sharedcachebug

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

// cached is the first closure Func made.
var cached Action

// Func wraps f as an Action, the first time it is called.
func Func(f func(ctx context.Context) error) Action {
	if cached != nil {
		return cached
	}
	a := func(ctx context.Context) error { return f(ctx) }
	cached = a
	return a
}

// Expose wraps fn, through Func, as an Action.
func Expose[A any](fn func(A)) Action {
	return Func(func(ctx context.Context) error {
		var a A
		fn(a)
		return nil
	})
}
