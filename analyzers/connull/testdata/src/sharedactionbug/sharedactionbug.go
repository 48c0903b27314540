// Package sharedactionbug is sharedaction with one Ctx that the parent
// test made and captured in the closure it passed to Func: both parallel
// subtests run the action on it, and one may clear params between the
// other's check and dereference. The want is in the test file: only the
// package's test variant has the subtests.
package sharedactionbug

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
