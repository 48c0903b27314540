package validate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// explained reports whether Explain can say why a forced order of a
// finding of kind brought no effect.
func explained(kind string) bool {
	return kind == finding.ConNull || kind == finding.ConIndex || kind == finding.ConUninit
}

// explain forces order o once more with the run recorded, and returns
// what the recorded trace says of why the effect did not come (Explain),
// or "" when that run did something else (failed, diverged) or the trace
// does not tell.
func (v *Validator) explain(ctx context.Context, t Target, f finding.Finding, w finding.Witness, o Order) string {
	path := filepath.Join(v.o.Dir, "explain"+strconv.FormatInt(v.seq.Add(1), 10)+".trace")
	defer os.Remove(path)
	t.Env = append(append([]string(nil), t.Env...), "PRECOG_TRACE="+path, "PRECOG_TEST="+testName(w.Test))
	if v.o.MaxTraceBytes > 0 {
		t.Env = append(t.Env, plan.TraceLimitEnv+"="+strconv.FormatInt(v.o.MaxTraceBytes, 10))
	}
	vd, _ := v.force(ctx, t, f, w, o)
	if vd.Status != finding.NotConfirmed {
		return ""
	}
	file, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer file.Close()
	// A damaged trace still tells what it holds, and so does one cut at
	// its size limit: what it holds is a consistent prefix of the run, so
	// the write a use read, before it in the order, is in it with the use.
	tr, _ := trace.ReadAll(file)
	if tr == nil {
		return ""
	}
	return Explain(f, w, tr.Events, v.o.Sites)
}

// Explain says, from the trace evs of a run forced into a finding's order
// that did not fail, why the effect did not come, or "" if the trace does
// not tell. It looks at the value the use read: the last write to the
// location before it in the trace. For con-null, a non-nil value stored
// after the nil store (the value read was not nil), or the nil read and
// no crash (the use is guarded); for con-index, the value the index or
// bound was read with (in bounds); for con-uninit, what the read saw:
// the value of the write that initialized the location before it, of
// another, earlier store, or the zero value (stored, or no store
// recorded before it), handled. sites names the sites by position; it
// may be nil.
func Explain(f finding.Finding, w finding.Witness, evs []trace.Event, sites *trace.SiteTable) string {
	use := map[string]string{finding.ConNull: finding.RoleDeref, finding.ConIndex: finding.RoleIndex, finding.ConUninit: finding.RoleRead}[f.Kind]
	ev := roles(f, w)
	if use == "" || len(ev[use]) == 0 {
		return ""
	}
	pts := control.Points(evs)
	at := func(e finding.Event) int {
		for i, p := range pts {
			if p.G == e.G && p.Site == e.Site && p.N == e.N {
				return i
			}
		}
		return -1
	}
	r := at(ev[use][0])
	if r < 0 {
		return ""
	}
	last := -1
	for j := r - 1; j >= 0; j-- {
		if k := evs[j].Kind; (k == trace.EvWrite || k == trace.EvAtomicStore) && evs[j].Addr == evs[r].Addr {
			last = j
			break
		}
	}
	name := func(i int) string {
		if sites != nil {
			if s, ok := sites.Lookup(evs[i].Site); ok {
				return fmt.Sprintf("%s at %s:%d", s.Expr, filepath.Base(s.File), s.Line)
			}
		}
		return "site " + strconv.FormatUint(uint64(evs[i].Site), 10)
	}
	switch f.Kind {
	case finding.ConNull:
		ns := -1
		if len(ev[finding.RoleNilStore]) > 0 {
			ns = at(ev[finding.RoleNilStore][0])
		}
		switch {
		case last < 0 || ns < 0:
			return ""
		case last == ns || evs[last].Value == 0:
			return fmt.Sprintf("the read of %s saw nil and did not crash: the use is guarded (a nil check, or a recover)", name(r))
		case last > ns:
			return fmt.Sprintf("the value read was not nil: %s stored a non-nil value after the nil store and before the read of %s", name(last), name(r))
		}
	case finding.ConIndex:
		if last >= 0 {
			if v := int64(evs[last].Value); v > -1<<31 && v < 1<<31 {
				return fmt.Sprintf("the index was in bounds: the read of %s saw %d, stored by %s", name(r), v, name(last))
			}
			// A slice's or pointer's word is its identity, not a number.
			return fmt.Sprintf("the index was in bounds: the read of %s saw the value stored by %s", name(r), name(last))
		}
	case finding.ConUninit:
		if len(ev[finding.RoleDone]) > 0 {
			return ""
		}
		inits := make(map[uint32]bool)
		for _, e := range ev[finding.RoleInit] {
			inits[e.Site] = true
		}
		switch {
		case last < 0:
			// A store the trace does not hold may have come first: a
			// composite literal's, or one in code not instrumented.
			return fmt.Sprintf("the read of %s found no recorded store before it (it saw the zero value, or a value stored where precog records nothing), and the code handled it", name(r))
		case evs[last].Value == 0:
			return fmt.Sprintf("the read of %s saw the zero value, stored by %s, and the code handled it", name(r), name(last))
		case inits[evs[last].Site]:
			return fmt.Sprintf("the value was initialized before the read of %s: %s wrote it first", name(r), name(last))
		}
		// An earlier store than the initialization the finding names
		// (neo4j's `bookmark := "x"` before the go statement, then
		// `bookmark = ...` after the round trip): the read saw it.
		return fmt.Sprintf("the read of %s saw the value stored by %s, not the zero value", name(r), name(last))
	}
	return ""
}
