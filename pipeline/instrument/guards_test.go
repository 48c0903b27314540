package instrument

import (
	"go/token"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/ssa"
)

// TestGuardLoads checks guardLoads on testdata/src/guards: for every store,
// and the loads of lines marked reads:, the marks (load:NAME) of the lines
// of its guarding loads against the list on its line. A store after an
// if's join, one before a loop's check, and one whose condition goes
// through a phi have none; a loop's if, both operands of &&, early
// returns' and a loop exit's checks guard what they lead to. A bool, its
// negation and a nil check switch; a comparison of a count does not.
func TestGuardLoads(t *testing.T) {
	fset, f, pkg := srcPackage(t, "guards")
	loads, want, reads := make(map[int]string), make(map[int]string), make(map[int]bool)
	mark := regexp.MustCompile(`// (load|guards|reads):(.*)$`)
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			m := mark.FindStringSubmatch(c.Text)
			if m == nil {
				continue
			}
			line := fset.Position(c.Pos()).Line
			switch m[1] {
			case "load":
				loads[line] = m[2]
			case "reads":
				reads[line] = true
				fallthrough
			default:
				want[line] = strings.Join(strings.Fields(m[2]), " ")
			}
		}
	}
	got := make(map[int][]string)
	for _, fn := range methods(pkg) {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				line := fset.Position(instr.Pos()).Line
				load, isLoad := instr.(*ssa.UnOp)
				if _, isStore := instr.(*ssa.Store); !instr.Pos().IsValid() || !isStore && !(isLoad && load.Op == token.MUL && reads[line]) {
					continue
				}
				got[line] = []string{}
				for _, g := range guardLoads(instr) {
					name := loads[fset.Position(g.pos).Line]
					if g.switches {
						name += "!"
					}
					got[line] = append(got[line], name)
				}
			}
		}
	}
	for line, w := range want {
		g, ok := got[line]
		if !ok {
			t.Errorf("line %d: no store", line)
			continue
		}
		slices.Sort(g)
		if s := strings.Join(slices.Compact(g), " "); s != w {
			t.Errorf("line %d: guards %q, want %q", line, s, w)
		}
	}
	for line := range got {
		if _, ok := want[line]; !ok {
			t.Errorf("line %d: a store with no guards: mark", line)
		}
	}
}
