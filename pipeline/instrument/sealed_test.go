package instrument

import (
	"regexp"
	"testing"
)

// TestSealedUnlocks checks sealedUnlocks on testdata/src/sealed: every
// Unlock's line is marked sealed or kept, and a deferred Unlock is never
// sealed.
func TestSealedUnlocks(t *testing.T) {
	fset, f, pkg := srcPackage(t, "sealed")
	want := make(map[int]bool) // line: sealed
	mark := regexp.MustCompile(`// (sealed|kept)\b`)
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if m := mark.FindStringSubmatch(c.Text); m != nil {
				want[fset.Position(c.Pos()).Line] = m[1] == "sealed"
			}
		}
	}
	got := make(map[int]bool)
	pure := newPurity()
	for _, fn := range methods(pkg) {
		for _, pos := range sealedUnlocks(fn, pure, nil) {
			got[fset.Position(pos).Line] = true
		}
	}
	for line, sealed := range want {
		if got[line] != sealed {
			t.Errorf("line %d: sealed %v, want %v", line, got[line], sealed)
		}
	}
	for line := range got {
		if _, ok := want[line]; !ok {
			t.Errorf("line %d: sealed, not marked", line)
		}
	}
	if len(want) < 10 {
		t.Errorf("%d marked Unlocks: the fixture did not parse as meant", len(want))
	}
}
