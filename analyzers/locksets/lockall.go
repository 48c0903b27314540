package locksets

import (
	"go/token"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/model"
	"github.com/precog-dev/precog/analyzers/sharedloc"
)

// findLockAlls records the range loops of fn that lock one mutex in every
// iteration and release it in none: a sharded structure's "lock every
// shard" (ccache's halt: `for _, b := range c.buckets { b.Lock() }`,
// which its clear then runs under, released by unhalt's loop of Unlocks).
// A mutex is named by the location that holds it, a field of all
// instances of its type, so the loop that runs to its end holds it for
// every element it went over; on its exit edge (see flow's out) the
// mutex is held, though the path that ran no iteration, which locked
// nothing, reaches the exit too: there were then no elements to hold
// (the analysis errs toward "protected", as for two instances of a
// type). The Lock must run on every iteration that comes back to the
// loop's head (its block dominates every back edge), and no Unlock of
// the mutex may run in the loop's body; a loop left by a break keeps
// what the break's own path holds.
func (a *solver) findLockAlls(fn *ssa.Function) {
	for _, h := range fn.Blocks {
		if !isRangeHead(h) || len(h.Succs) != 2 {
			continue
		}
		body, exit := h.Succs[0], h.Succs[1]
		if !strings.HasSuffix(exit.Comment, ".done") {
			continue
		}
		var latches []*ssa.BasicBlock // the back edges' sources
		for _, p := range h.Preds {
			if body.Dominates(p) {
				latches = append(latches, p)
			}
		}
		if len(latches) == 0 {
			continue
		}
		var locked []lockAt
		released := make(map[sharedloc.Loc]bool)
		for _, b := range fn.Blocks {
			if !body.Dominates(b) {
				continue
			}
			for _, instr := range b.Instrs {
				lc, ok := a.calls[instr]
				if !ok {
					continue
				}
				switch lc.op {
				case model.Lock, model.RLock:
					if all(latches, b.Dominates) {
						locked = append(locked, lockAt{lc, instr.Pos()})
					}
				case model.Unlock, model.RUnlock:
					released[lc.mutex] = true
				}
			}
		}
		for _, l := range locked {
			if !released[l.mutex] {
				a.lockAll[h] = append(a.lockAll[h], l)
			}
		}
	}
}

// A lockAt is a lock call and its position.
type lockAt struct {
	lockCall
	pos token.Pos
}

// isRangeHead reports whether b is the head of a range loop over a
// slice, an array, a string, a map or an integer, as go/ssa names it.
func isRangeHead(b *ssa.BasicBlock) bool {
	return b.Comment == "rangeindex.loop" || b.Comment == "rangeiter.loop" || b.Comment == "rangeint.loop"
}
