package shim

import "unsafe"

// kind is an event kind; the values are the trace format's kind bytes.
type kind uint8

const (
	kindFork          kind = 1
	kindBegin         kind = 2
	kindEnd           kind = 3
	kindLock          kind = 4
	kindUnlock        kind = 5
	kindRLock         kind = 6
	kindRUnlock       kind = 7
	kindTryLock       kind = 8
	kindWGAdd         kind = 9
	kindWGDone        kind = 10
	kindWGWait        kind = 11
	kindOnceDo        kind = 12
	kindCondWait      kind = 13
	kindCondSignal    kind = 14
	kindCondBroadcast kind = 15
	kindAtomicLoad    kind = 16
	kindAtomicStore   kind = 17
	kindChanMake      kind = 18
	kindChanSend      kind = 19
	kindChanRecv      kind = 20
	kindChanClose     kind = 21
	kindSelect        kind = 22
	kindRead          kind = 23
	kindWrite         kind = 24
	kindMapRead       kind = 25
	kindMapWrite      kind = 26
	kindMapIter       kind = 27
	kindFuncEnter     kind = 28
	kindFuncExit      kind = 29
	kindTestStart     kind = 30
	kindTestEnd       kind = 31
	kindGCEpoch       kind = 32
	kindTaskGo        kind = 33
	kindTaskWait      kind = 34
)

// enabled is true when recording or control is on. Every API function tests
// it first; it is written only by init.
var enabled bool

// gstate is the shim's per-goroutine state.
type gstate struct{}

func cur() *gstate { return &gstate{} }

// gate is the hook every sync operation passes through before the real
// operation; control modes will use it.
func gate(g *gstate, site uint32, k kind, addr unsafe.Pointer) {}

func gateSync(site uint32, k kind, addr unsafe.Pointer) *gstate {
	g := cur()
	gate(g, site, k, addr)
	return g
}

func syncBefore(site uint32, k kind, addr unsafe.Pointer, arg uint64) {
	gateSync(site, k, addr).syncEvent(site, k, addr, arg)
}

func (g *gstate) syncEvent(site uint32, k kind, addr unsafe.Pointer, arg uint64) {}

func fork(site uint32, k kind, group unsafe.Pointer) uint64         { return 0 }
func begin(id uint64)                                               {}
func end()                                                          {}
func access(site uint32, k kind, addr unsafe.Pointer)               {}
func write(site uint32, addr unsafe.Pointer, word uint64)           {}
func selected(site uint32, index int, ch unsafe.Pointer, ok uint64) {}
func selectPlan(site uint32) (int, <-chan struct{})                 { return -1, nil }
func testStart(t TB)                                                {}

func valueWord[T any](p *T, v *T) uint64 { return 0 }

func ptrWord(p unsafe.Pointer) uint64 {
	if p == nil {
		return 0
	}
	return 1
}
