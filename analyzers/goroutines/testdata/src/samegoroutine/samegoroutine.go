// Package samegoroutine: callbacks handed to library functions that call
// them before returning (sort.Slice, sync.Once.Do, strings.Map, a t.Run
// without t.Parallel) stay on the goroutine that makes the call.
package samegoroutine

import (
	"sort"
	"strings"
	"sync"
)

var once sync.Once

func setup() {} // want `^ctx: caller$`

func Sort(xs []int) string { // want `^ctx: caller$`
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] }) // want `^ctx: caller$`
	once.Do(setup)
	return strings.Map(func(r rune) rune { return r }, "x") // want `^ctx: caller$`
}

func Background(xs []int) { // want `^ctx: caller$`
	go func() { // want `^ctx: go statement Background\$1$`
		sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] }) // want `^ctx: go statement Background\$1$`
	}()
}
