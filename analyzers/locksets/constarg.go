package locksets

import (
	"go/constant"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/callgraph"
)

// A siteSet is the set held at a call site of a function, as its entry
// set meets them.
type siteSet struct {
	site ssa.Instruction
	held Set
}

// An entrySplit is a function's entry set per valuation of its correlated
// conditions (flow's bit i: conds[i] true), and whether any call site
// enters it so.
type entrySplit struct {
	sets  []Set
	reach []bool
}

func (e *entrySplit) equal(f *entrySplit) bool {
	if e == nil || f == nil {
		return e == f
	}
	return slices.Equal(e.reach, f.reach) && slices.EqualFunc(e.sets, f.sets, equal)
}

// splitEntry returns fn's entry set per valuation of its correlated
// conditions, when some of those are boolean parameters to which some
// call site passes a constant (netpoll's closeCallback(needLock bool),
// which takes the lock only when needLock, called with true where nothing
// is held and with false where the caller holds it): a valuation's entry
// is the meet of the sets held at the call sites whose constants agree
// with it (a site passing a value that is not constant agrees with both),
// and a valuation that no site agrees with is entered by none. Nil when
// no site passes a constant to such a parameter: every valuation then
// starts from the meet of all the sites.
//
// Why sound: the sites are all the calls that run fn (as for the meet),
// and a parameter is one SSA value for the whole call, so the paths of a
// call that passed true are those of the valuations where it is true.
func (a *solver) splitEntry(fn *ssa.Function, sites []siteSet) *entrySplit {
	cs := a.condsOf[fn]
	if cs == nil {
		return nil
	}
	conds := cs.vals
	// params[i] is the index in fn.Params of conds[i], or -1.
	params := make([]int, len(conds))
	anyParam := false
	for i, c := range conds {
		params[i] = -1
		if p, ok := c.(*ssa.Parameter); ok && p.Parent() == fn {
			params[i] = slices.Index(fn.Params, p)
			anyParam = true
		}
	}
	if !anyParam {
		return nil
	}
	// consts[k][i]: what site k passes for conds[i]: 0 false, 1 true, -1
	// not known.
	consts := make([][]int, len(sites))
	anyConst := false
	for k, ss := range sites {
		consts[k] = make([]int, len(conds))
		for i, pi := range params {
			consts[k][i] = -1
			if pi < 0 {
				continue
			}
			if b, ok := constArg(ss.site, fn, pi); ok {
				consts[k][i] = 0
				if b {
					consts[k][i] = 1
				}
				anyConst = true
			}
		}
	}
	if !anyConst {
		return nil
	}
	nv := 1 << len(conds)
	out := &entrySplit{sets: make([]Set, nv), reach: make([]bool, nv)}
	for v := range nv {
		for k, ss := range sites {
			agrees := true
			for i, c := range consts[k] {
				if c >= 0 && (v>>i&1 == 1) != (c == 1) {
					agrees = false
				}
			}
			if !agrees {
				continue
			}
			if !out.reach[v] {
				out.sets[v], out.reach[v] = ss.held, true
			} else {
				out.sets[v] = meet(out.sets[v], ss.held)
			}
		}
	}
	return out
}

// constArg reports the boolean constant that site passes to fn's
// parameter number i, when site is a direct call of fn (or a call of
// fn through an interface) with a constant there.
func constArg(site ssa.Instruction, fn *ssa.Function, i int) (value, ok bool) {
	call, isCall := site.(ssa.CallInstruction)
	if !isCall {
		return false, false
	}
	common := call.Common()
	var arg ssa.Value
	switch {
	case common.IsInvoke():
		if i == 0 || i-1 >= len(common.Args) {
			return false, false
		}
		arg = common.Args[i-1]
	case callgraph.StaticCallee(common) == fn && i < len(common.Args):
		arg = common.Args[i]
	default:
		return false, false
	}
	c, isConst := arg.(*ssa.Const)
	if !isConst || c.Value == nil || c.Value.Kind() != constant.Bool {
		return false, false
	}
	return constant.BoolVal(c.Value), true
}
