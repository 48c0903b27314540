package spawnlib

import (
	"context"
	"time"
)

// Derive derives contexts: package context's model (contextStarts) gives
// WithCancel and the rest no fact, though propagateCancel's go statement
// is reached by a static call of each: its goroutine runs only a parent of
// the caller's own Context type, so Derive gets none either.
func Derive(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	ctx, cancel2 := context.WithCancelCause(ctx)
	ctx, cancel3 := context.WithTimeout(ctx, time.Second)
	return ctx, func() { cancel(); cancel2(nil); cancel3() }
}

// After hands f to context.AfterFunc, which starts f's goroutine during
// the call when ctx is done already: it keeps its fact.
func After(ctx context.Context, f func()) func() bool { // want After:`spawns\(1\)` After:`^starts goroutines through a call$`
	return context.AfterFunc(ctx, f)
}
