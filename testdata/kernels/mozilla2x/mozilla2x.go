// Package mozilla2x is the execution-suppression paper's mozilla-2
// (execution-suppression.txt §4, Tables I and II: Mozilla M11, AVIO's
// atomicity violation): a W1 W2 R1 atomicity violation without a data race.
// (The corpus's mozilla2 is OSCS's Mozilla-2-AM, a different bug.)
//
// A XUL document loads a script in two steps: LoadScript sets the document's
// current script prototype d.currentScriptProto (W1) in one critical
// section, and, once the source has arrived, OnStreamComplete compiles the
// prototype it finds there (R1) in a later critical section of the same
// lock. Abort, on another goroutine (the user stops the page), clears the
// prototype (W2) in a critical section of its own. Every access holds d.mu:
// no data race; the two steps of the load are just not one critical section.
//
// Crashing interleaving (W1 W2 R1):
//
//	load goroutine                       abort goroutine
//	W1 d.currentScriptProto = proto
//	                                     W2 d.currentScriptProto = nil
//	R1 d.currentScriptProto.compile()
//	panic: runtime error: invalid memory address or nil pointer dereference
//
// The test's normal schedule hides the bug: the user stops the page 5 ms
// after the load started, long after the script compiled (go test -count=50
// passes 50 of 50 runs). precog test predicts the interleaving (OSCS: the
// abort's critical section between the load's two; ConMem: the nil store
// before the dereference) and its forced run fails the test, which is the
// failing run precog explain must find by itself.
//
// Root cause (explain file): an atomicity violation, W2 between W1 and R1.
// As in the paper: the nil dereferenced at R1 was last defined at W2 by the
// abort goroutine; W2 and R1 are ordered by d.mu (no RAW race), but the
// load goroutine wrote the location at W1 before W2 and reads it at R1
// after: a W1 W2 R1 pattern. Moving W2 before W1 (the load then sets the
// prototype after the abort) and moving it after R1 (the abort clears a
// compiled script) both avoid the failure: an atomicity violation, in four
// executions (1+1+0+2 in Table II's terms).
package mozilla2x

import "sync"

// ScriptProto is a script prototype.
type ScriptProto struct {
	src string
}

// compile compiles the prototype and returns the size of its bytecode.
func (p *ScriptProto) compile() int { return 2 * len(p.src) }

// Document is a XUL document (nsXULDocument).
type Document struct {
	mu                 sync.Mutex
	currentScriptProto *ScriptProto
	bytecode           int
}

// LoadScript starts loading proto's source (nsXULDocument::LoadScript).
func (d *Document) LoadScript(proto *ScriptProto) {
	d.mu.Lock()
	d.currentScriptProto = proto // W1
	d.mu.Unlock()
}

// OnStreamComplete compiles the script whose source has arrived
// (nsXULDocument::OnStreamComplete).
func (d *Document) OnStreamComplete() {
	d.mu.Lock()
	d.bytecode = d.currentScriptProto.compile() // R1
	d.mu.Unlock()
}

// Abort stops the load (the page is stopped or closed).
func (d *Document) Abort() {
	d.mu.Lock()
	d.currentScriptProto = nil // W2
	d.mu.Unlock()
}
