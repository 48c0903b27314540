// Package synclib has functions that call the functions they are given
// on the caller's goroutine before they return (a container's Each, a
// helper that hands its parameter on to one, a deferred call), which get
// a SyncCallsFact naming those parameters, and functions that keep the
// function, capture it in a closure that escapes, or run it on a
// goroutine, which get none.
package synclib

import "sort"

type Queue[T any] struct {
	vs   []T
	hook func(T)
}

func (q *Queue[T]) Each(f func(T) bool) { // want Each:`calls\(1\)`
	if f == nil {
		return
	}
	for _, v := range q.vs {
		if !f(v) {
			return
		}
	}
}

// Visit hands f on to Each inside a closure that Each calls.
func (q *Queue[T]) Visit(f func(T)) { // want Visit:`calls\(1\)`
	q.Each(func(v T) bool { f(v); return true })
}

// Last defers the call.
func (q *Queue[T]) Last(f func(T)) { // want Last:`calls\(1\)`
	if len(q.vs) > 0 {
		defer f(q.vs[len(q.vs)-1])
	}
}

// SortBy hands its parameter to a library function known to call it.
func SortBy(xs []int, less func(a, b int) bool) { // want SortBy:`calls\(1\)`
	sort.Slice(xs, func(i, j int) bool { return less(xs[i], xs[j]) })
}

// Both calls one parameter and keeps the other: only the first counts.
func Both(f, g func()) func() { // want Both:`calls\(0\)`
	f()
	return g
}

// OnPush keeps f.
func (q *Queue[T]) OnPush(f func(T)) { q.hook = f }

// Async runs f on a goroutine.
func (q *Queue[T]) Async(f func(T)) { // want Async:`spawns\(1\)` Async:`^starts goroutines$`
	go func() {
		for _, v := range q.vs {
			f(v)
		}
	}()
}

// Later returns a closure that calls f.
func Later(f func()) func() {
	return func() { f() }
}

// Self hands f to itself.
func Self(f func(any)) {
	f(f)
}

// Recur hands f back and forth with Recur2: no call of it is ever made
// there that is known to be synchronous.
func Recur(f func(), n int) {
	if n > 0 {
		Recur2(f, n-1)
	}
}

func Recur2(f func(), n int) { Recur(f, n) }

// Walk calls f through a closure that calls itself through the variable
// it is kept in (kcp-go's shape, whose walk once never ended): no fact.
func Walk(f func(int), n int) {
	var rec func(int)
	rec = func(i int) {
		if i < n {
			f(i)
			rec(i + 1)
		}
	}
	rec(0)
}

// unexported gets no fact: no other package can call it.
func unexported(f func()) { f() }

var _ = unexported
