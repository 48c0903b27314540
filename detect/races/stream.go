package races

import (
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/internal/streamed"
	"github.com/precog-dev/precog/shim/trace"
)

// CheckStream reports the data races of the trace whose events next returns
// in the global order (trace.OrderedReader's Next), in memory bounded by
// the goroutines, sync objects and locations of the trace, not its
// length: it walks the events with hb.Stream (LockOrder) and keeps, per
// location, FastTrack's shadow state as Check does, each entry with what a
// report needs (goroutine, clock, stack, held locks, instance), so that
// nothing refers back to the trace. With a window (Options.Window) longer
// than the trace its findings are Check's on hb.Analyze of the same
// events, byte for byte, with each witness event's Lock named as
// pipeline/predict names it (the outermost Lock of its goroutine still
// open, at most 2^20 events back). With a shorter one, the races found at
// an access whose goroutine the walk marked unsettled (hb.Context) are
// withheld and counted in Stats.Withheld, so that what is reported is
// still unordered in Analyze's graph. At most Options.MaxLocations
// locations keep shadow state: past it the oldest is dropped and counted
// in Stats.LocationsDropped (races with its accesses are missed). next's
// error other than io.EOF (trace.ErrBroken) is returned with the findings
// of the events before it.
func CheckStream(next func() (trace.Event, error), sites *trace.SiteTable, opts Options) ([]finding.Finding, error) {
	c := &checker{sites: sites, shadow: make(map[key]int), best: make(map[[2]string]int)}
	c.hb = func(b, a access) bool { return hb.Before(b.ctx, b.ev, a.ctx, a.ev) }
	maxLoc := opts.MaxLocations
	if maxLoc == 0 {
		maxLoc = DefaultMaxLocations
	}
	var order []key // the locations with shadow state, first seen first
	dropped := 0
	st, err := hb.Stream(next, hb.StreamOptions{Options: hb.Options{Sites: sites, LockOrder: true}, Window: opts.Window}, func(s *hb.Step) {
		if opts.Visit != nil {
			opts.Visit(s)
		}
		a := access{ev: s.Index, g: s.Ctx.G, site: s.Event.Site, ctx: s.Ctx, n: s.Instance}
		var ok bool
		if a.write, a.atomic, ok = accessKind(s.Event.Kind, s.Event.Site); !ok {
			return
		}
		a.name = s.Loc.Var
		k := key{s.Loc.Addr, s.Loc.Epoch, s.Loc.Gen}
		l, added := c.state(k)
		if added && maxLoc > 0 {
			if len(c.shadow) > maxLoc {
				c.drop(order[0])
				order = order[1:]
				dropped++
			}
			order = append(order, k)
		}
		c.access(l, a)
	})
	fs := c.finish(opts)
	if opts.Stats != nil {
		opts.Stats.Events += st.Events
		opts.Stats.Withheld += c.withheld
		opts.Stats.LocationsDropped += dropped
	}
	return fs, err
}

// reportStreamed adds access x to the finding and witness that report
// builds, from what CheckStream kept of it.
func (c *checker) reportStreamed(f *finding.Finding, w *finding.Witness, x access) {
	role := roleOf(x)
	kind := trace.EvRead
	switch {
	case x.write && x.atomic:
		kind = trace.EvAtomicStore
	case x.write:
		kind = trace.EvWrite
	case x.atomic:
		kind = trace.EvAtomicLoad
	}
	e := streamed.Event{Index: x.ev, Site: x.site, N: x.n, Kind: kind, Ctx: x.ctx}
	w.Events = append(w.Events, e.Witness(role))
	streamed.AddSite(f, c.sites, e, role)
}
