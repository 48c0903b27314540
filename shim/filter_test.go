package shim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// TestFilter records under a filter naming one access site of two and no
// function entries, then with "none": only the named site's accesses are
// in the trace, and no Enter or Exit.
func TestFilter(t *testing.T) {
	const base = 9000
	list := filepath.Join(t.TempDir(), "sites")
	if err := os.WriteFile(list, []byte("\n9001\n 9003\n70000\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { accessOn, funcsOff = nil, false })
	t.Setenv(plan.AccessesEnv, list)
	t.Setenv(plan.FuncsEnv, "0")
	if err := readFilter(); err != nil {
		t.Fatal(err)
	}
	var x int
	evs := recorded(t, base, func() {
		Enter(base + 5)
		W(base+1, &x, 1)
		W(base+2, &x, 2)
		_ = *R(base+3, &x)
		_ = *R(base+4, &x)
		Exit(base + 5)
	})
	var got []uint32
	for _, ev := range evs {
		switch ev.Kind {
		case trace.EvRead, trace.EvWrite, trace.EvFuncEnter, trace.EvFuncExit:
			if ev.Site >= base && ev.Site < base+10 {
				got = append(got, ev.Site)
			}
		}
	}
	if len(got) != 2 || got[0] != base+1 || got[1] != base+3 {
		t.Errorf("recorded sites %v, want [9001 9003]", got)
	}

	t.Setenv(plan.AccessesEnv, "none")
	if err := readFilter(); err != nil {
		t.Fatal(err)
	}
	if !filtered(base+1) || !filtered(0) || funcsOff {
		t.Error(`"none" must filter every site, and an unset PRECOG_FUNCS must record functions`)
	}
	t.Setenv(plan.AccessesEnv, filepath.Join(t.TempDir(), "missing"))
	if readFilter() == nil {
		t.Error("a missing site list is not an error")
	}
}
