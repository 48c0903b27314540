package shim

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// TestFilter records under a filter naming one access site of two and no
// function entries, then with "none": only the named site's accesses are
// in the trace, and no Enter or Exit; with a list, the accesses made while
// a lock is held are too.
func TestFilter(t *testing.T) {
	const base = 9000
	list := filepath.Join(t.TempDir(), "sites")
	if err := os.WriteFile(list, []byte("\n9001\n 9003\n70000\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { accessOn, sections, funcsOff = nil, false, false })
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

	// Inside a critical section every access is recorded, listed or not,
	// through the plain calls and a body's Local; before the section,
	// after it and under a failed TryLock only the listed ones. As dns's
	// ActivateAndServe: a flag read and set in the section around a listed
	// init.
	var mu sync.Mutex
	var rw sync.RWMutex
	evs = recorded(t, base, func() {
		var l Local
		W(base+2, &x, 3) // before: left out
		LockL(&l, base+7, &mu)
		_ = *RL(&l, base+4, &x)
		WN(&l, base+2, &x, 4)
		W(base+1, &x, 5)
		UnlockL(&l, base+8, &mu)
		_ = *RL(&l, base+4, &x) // after: left out
		RLock(base+7, &rw)
		_ = *R(base+4, &x)
		RUnlock(base+8, &rw)
		mu.Lock()
		if TryLock(base+7, &mu) {
			t.Error("TryLock acquired a held mutex")
		}
		W(base+2, &x, 6) // the TryLock failed: left out
		mu.Unlock()
	})
	got = nil
	for _, ev := range evs {
		if (ev.Kind == trace.EvRead || ev.Kind == trace.EvWrite) && ev.Site >= base && ev.Site < base+10 {
			got = append(got, ev.Site)
		}
	}
	if want := []uint32{base + 4, base + 2, base + 1, base + 4}; !slices.Equal(got, want) {
		t.Errorf("with locks held: recorded sites %v, want %v", got, want)
	}

	t.Setenv(plan.AccessesEnv, "none")
	if err := readFilter(); err != nil {
		t.Fatal(err)
	}
	// CFP's cheap run records no access, in a critical section or not.
	evs = recorded(t, base, func() {
		Lock(base+7, &mu)
		W(base+1, &x, 7)
		Unlock(base+8, &mu)
	})
	for _, ev := range evs {
		if ev.Kind == trace.EvWrite && ev.Site == base+1 {
			t.Error(`"none" recorded a write in a critical section`)
		}
	}
	if !filtered(base+1) || !filtered(0) || funcsOff {
		t.Error(`"none" must filter every site, and an unset PRECOG_FUNCS must record functions`)
	}
	t.Setenv(plan.AccessesEnv, filepath.Join(t.TempDir(), "missing"))
	if readFilter() == nil {
		t.Error("a missing site list is not an error")
	}
}
