// Package mozilla is the CFP paper's Fig. 7 (Mozilla SpiderMonkey): an
// atomicity violation between js_InitAtomState and js_FreeAtomState.
//
// Making a context on a runtime (re)initializes the runtime's atom state,
// and shutting the runtime down frees it. jsInitAtomState sets state.table,
// checks it for nil and then fills it; jsFreeAtomState sets it to nil.
// When a context is made on one goroutine while another shuts the runtime
// down, the nil store can land between the check and the use:
//
//	making goroutine                   shutting-down goroutine
//	state.table = newTable()
//	S1 if state.table == nil {...}
//	                                   S3 state.table = nil
//	S2 state.table.entries[...] = ...  (nil pointer dereference)
//
// Every test of the package (the paper's seven inputs) creates and
// destroys contexts this way, so every test covers {jsInitAtomState,
// jsFreeAtomState}; their scripts differ. The tests' normal schedule hides
// the bug: the shutting-down goroutine waits a couple of milliseconds.
package mozilla

import (
	"strings"
	"sync"
)

// atomTable interns the runtime's atoms.
type atomTable struct {
	entries map[string]int
}

// atomState is a runtime's atom state (JSAtomState).
type atomState struct {
	table *atomTable
}

// Runtime is a JavaScript runtime (JSRuntime).
type Runtime struct {
	mu    sync.Mutex // guards the atom table's entries
	state atomState
}

// Context is one context on a runtime (JSContext).
type Context struct {
	rt     *Runtime
	output []string
}

func newAtomTable() *atomTable { return &atomTable{entries: make(map[string]int)} }

// jsInitAtomState sets up the atom state of a runtime for a new context.
func jsInitAtomState(rt *Runtime) bool {
	rt.state.table = newAtomTable()
	if rt.state.table == nil { // S1
		return false
	}
	keep(rt.state.table)
	rt.state.table.entries["null"] = 0 // S2
	return true
}

// keep stands for the table's initialization between the check and the
// fill; the call keeps the compiler from reusing S1's load at S2.
//
//go:noinline
func keep(*atomTable) {}

// jsFreeAtomState frees the atom state of a runtime.
func jsFreeAtomState(rt *Runtime) {
	rt.state.table = nil // S3
}

// NewContext makes a context (js_NewContext).
func (rt *Runtime) NewContext() *Context {
	jsInitAtomState(rt)
	return &Context{rt: rt}
}

// Shutdown frees the runtime's state (js_DestroyRuntime); contexts still
// around can only evaluate scripts.
func (rt *Runtime) Shutdown() {
	jsFreeAtomState(rt)
}

// Eval runs a script: here, it splits it into statements and echoes them.
func (cx *Context) Eval(script string) int {
	for _, stmt := range strings.Split(script, ";") {
		if s := strings.TrimSpace(stmt); s != "" {
			cx.output = append(cx.output, s)
		}
	}
	return len(cx.output)
}

// Intern interns a string in the context's runtime's atom table.
func (cx *Context) Intern(s string) int {
	cx.rt.mu.Lock()
	defer cx.rt.mu.Unlock()
	t := cx.rt.state.table
	if t == nil {
		return -1
	}
	if n, ok := t.entries[s]; ok {
		return n
	}
	t.entries[s] = len(t.entries)
	return t.entries[s]
}
