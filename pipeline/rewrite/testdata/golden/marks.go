// opts: starts
package golden

import (
	"context"
	"slices"
	"strings"
	"time"
)

type server struct{ name string }

func (s *server) local() string { return s.name }

// marks: every call of another package's function may start goroutines
// here (Options.Starts says so of every call); those that are marked
// wrap their last argument that is not a constant in MarkV, or their
// function value in MarkF.
func marks(ctx context.Context, s *server, xs []int, ok bool) {
	c, cancel := context.WithCancel(ctx) // MarkV: ctx
	defer cancel()                       // a function value: no callee
	_ = c
	_ = strings.ToUpper(strings.ToLower(s.name))          // the inner one's MarkV; the outer's MarkF, before the inner call (which runs before a MarkV)
	_ = strings.ToUpper(s.name) + strings.ToLower(s.name) // neither: each could run before the other's mark
	_ = strings.ToUpper(s.local())                        // MarkF: s.local() would run before a MarkV
	_ = strings.Repeat(s.name, 3)                         // MarkV: s.name, the last argument that is not a constant
	_ = strings.Repeat("x", 3)                            // MarkF: constants only
	if x := strings.TrimSpace(s.name); x != "" {          // MarkV
		_ = x
	}
	defer strings.ToUpper(s.name) // deferred: not marked
	go strings.ToUpper(s.name)    // a go statement's: not marked
	t := time.NewTimer(time.Second)
	t.Reset(time.Second)           // the shim's TimerReset: not marked
	_ = slices.Index(xs, 1)        // generic, inferred: MarkV keeps the type
	_ = slices.Index[[]int](xs, 1) // generic, instantiated: MarkV
	_ = s.local()                  // this package's: not marked
	_ = time.Duration(3)           // a conversion: not a call
	var d time.Duration
	_ = d.String()                             // a method, no argument: MarkF
	for _, f := range strings.Fields(s.name) { // MarkV
		_ = f
	}
	_ = strings.Map(func(r rune) rune { return []rune(strings.ToUpper(string(r)))[0] }, s.name) // both MarkV: the literal's calls run in its own frame
	_ = func() string { _ = s.local(); return strings.ToUpper(s.name) }                         // not ToUpper: s.local() runs before it in the literal's frame
	_ = strings.EqualFold(s.name, string(rune(len(xs))))                                        // MarkV: a conversion and a builtin call nothing
	_ = strings.Contains(s.name,
		s.local()) // MarkV on the argument's line, naming the call's: s.local() is on another line
	_ = strings.Contains(s.local(),
		s.name) // MarkF: s.local() runs after it (before a MarkV), on the call's line
	_ = slices.Contains([]bool{ok}, ok == true) // not marked: an untyped comparison last, and a generic function inferred
	var b strings.Builder
	_, _ = b.WriteString(s.local()) // not marked: a MarkF's method value would take &b before s.local() runs
}
