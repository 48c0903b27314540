package validate

import (
	"fmt"
	"strings"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/races"
	"github.com/precog-dev/precog/shim/plan"
)

// An Order is one interleaving to force for a finding: edges between the
// witness's events, and what it is meant to bring about.
type Order struct {
	// What says the order in words, for reports: "the nil store before the
	// dereference".
	What  string
	Edges []plan.Edge
	// Together are groups of steps released at the same instant.
	Together [][]plan.Point
	// Repeat is how many forced runs it gets when a run reaches it without
	// failing: more than 1 only where the effect needs luck on top of the
	// order (con-map's real overlap).
	Repeat int
	// Seed, if not 0, perturbs the run's other sync operations (a retry
	// of an order that diverged; Validator.Plan).
	Seed uint64
	// Control, if not nil, is the order of the same steps that should
	// pass, forced to check a failure that is only the test's (see
	// Validator.control): where reversing every edge cannot be followed,
	// as for an atomicity violation's two edges, whose reversal holds a
	// goroutine at its Unlock until another takes the lock it holds.
	Control []plan.Edge
}

// Orders returns the interleavings that would make finding f happen in the
// run that witness w names, in the order to try them, following ConMem-v
// (conmem.txt section 5) for the con-* kinds. It is pure: the plan is built
// from the witness's events alone. A kind without a plan gives an error.
func Orders(f finding.Finding, w finding.Witness) ([]Order, error) {
	orders, err := orders(f, w)
	if err != nil {
		return nil, err
	}
	return append(orders, lifted(orders, w)...), nil
}

// Steps returns o as steps between the events of witness w, for reports
// (finding.Validation.Order): each point named by the witness's event (or
// the Lock event opening its critical section) at it; a point the witness
// does not name keeps only its goroutine, site and count, in role "step".
func (o Order) Steps(w finding.Witness) *finding.Order {
	events := make(map[plan.Point]finding.Event)
	for _, e := range w.Events {
		if e.Lock != nil {
			events[point(*e.Lock)] = *e.Lock
		}
	}
	for _, e := range w.Events {
		events[point(e)] = e
	}
	event := func(p plan.Point) finding.Event {
		if e, ok := events[p]; ok {
			e.Lock = nil
			return e
		}
		return finding.Event{Role: "step", G: p.G, Site: p.Site, N: p.N, Index: -1}
	}
	out := &finding.Order{What: o.What, Run: w.Run}
	for _, e := range o.Edges {
		out.Edges = append(out.Edges, finding.Edge{Before: event(e.Before), After: event(e.After)})
	}
	for _, g := range o.Together {
		var evs []finding.Event
		for _, p := range g {
			evs = append(evs, event(p))
		}
		out.Together = append(out.Together, evs)
	}
	return out
}

// lifted returns, for each order with a step inside a critical section,
// the order with that step's goroutine held back at the Lock that opened
// the section instead: held inside it, the goroutine would keep the
// goroutine it waits for out of the section (a deadlock the shim's wait
// ends as diverged). Tried after the orders as they are, which hold the
// step as close to the access as possible.
func lifted(orders []Order, w finding.Witness) []Order {
	lockOf := make(map[plan.Point]*finding.Event)
	for _, e := range w.Events {
		if e.Lock != nil && e.Lock.G == e.G {
			lockOf[point(e)] = e.Lock
		}
	}
	var out []Order
	for _, o := range orders {
		l := Order{What: o.What + ", the goroutine held back before its critical section", Repeat: o.Repeat}
		changed := false
		for _, e := range o.Edges {
			if lk := lockOf[e.After]; lk != nil && lk.G != e.Before.G {
				e.After = point(*lk)
				changed = true
			}
			l.Edges = append(l.Edges, e)
		}
		if changed {
			out = append(out, l)
		}
	}
	return out
}

func orders(f finding.Finding, w finding.Witness) ([]Order, error) {
	ev := roles(f, w)
	one := func(r string) (finding.Event, error) {
		e := ev[r]
		if len(e) == 0 {
			return finding.Event{}, fmt.Errorf("the witness has no %s event", r)
		}
		return e[0], nil
	}
	switch f.Kind {
	case "con-null":
		// ConMem-v: wp right before rp. The reader's check of the
		// pointer, if the witness has one, goes before the store, so that
		// the check passes and the use sees nil.
		rp, err := one("deref")
		if err != nil {
			return nil, err
		}
		wp, err := one("nil-store")
		if err != nil {
			return nil, err
		}
		plain := Order{What: "the nil store before the dereference", Edges: []plan.Edge{edge(wp, rp)}}
		var orders []Order
		if c := ev["check"]; len(c) > 0 {
			// If the check cannot come first (it shares a critical
			// section with the dereference that the store needs),
			// the plain order is ConMem-v's.
			orders = append(orders, Order{What: "the nil store between the check and the dereference", Edges: []plan.Edge{edge(c[0], wp), edge(wp, rp)}})
		}
		orders = append(orders, plain)
		return append(orders, between(ev, rp, "the dereference between the nil store and its goroutine's next store")...), nil
	case "con-uninit":
		// ConMem-v: hold every initializing write back until the read
		// ran; for a WaitGroup, the Done before the Adds, or the Wait
		// before the Add that starts the count: the Wait finds the
		// counter at zero and returns, and its goroutine goes on while
		// the work the Add counts runs (or the Add lands as it wakes,
		// and Wait panics).
		use, init, what := "read", "init", "the read before the initializing write"
		switch {
		case len(ev["done"]) > 0:
			use, init, what = "done", "add", "the Done before the Add"
		case len(ev["wait"]) > 0:
			use, init, what = "wait", "add", "the Wait before the Add"
		}
		r, err := one(use)
		if err != nil {
			return nil, err
		}
		if len(ev[init]) == 0 {
			return nil, fmt.Errorf("the witness has no %s event", init)
		}
		o := Order{What: what}
		for _, w := range ev[init] {
			o.Edges = append(o.Edges, edge(r, w))
		}
		return []Order{o}, nil
	case "con-closed":
		// ConMem-v's Con-Dangling: the release first, then the use.
		cl, err := one("close")
		if err != nil {
			return nil, err
		}
		use := ev["send"]
		if len(use) == 0 && len(ev["close"]) > 1 {
			use = ev["close"][1:]
		}
		if len(use) == 0 {
			return nil, fmt.Errorf("the witness has no send or second close")
		}
		return []Order{{What: "the close before the " + use[0].Role, Edges: []plan.Edge{edge(cl, use[0])}}}, nil
	case "con-index":
		// ConMem-v's Con-Overflow: the race both ways. First the write
		// between the bound's check and the index, then the index before
		// the write.
		r, err := one("index")
		if err != nil {
			return nil, err
		}
		wr, err := one("write")
		if err != nil {
			return nil, err
		}
		first := Order{What: "the write before the index"}
		if c := ev["check"]; len(c) > 0 {
			first.What = "the write between the bound's check and the index"
			first.Edges = append(first.Edges, edge(c[0], wr))
		}
		first.Edges = append(first.Edges, edge(wr, r))
		orders := append([]Order{first}, between(ev, r, "the index between the write and its goroutine's next write")...)
		if l := ev["index-last"]; len(l) > 0 {
			last := Order{What: "the write before the index's last use in the loop"}
			if c := ev["check-last"]; len(c) > 0 {
				last.What = "the write between the bound's check and the index, in the loop's last iteration"
				last.Edges = append(last.Edges, edge(c[0], wr))
			}
			last.Edges = append(last.Edges, edge(wr, l[0]))
			orders = append(orders, last)
		}
		return append(orders, Order{What: "the index before the write", Edges: []plan.Edge{edge(r, wr)}}), nil
	case "con-map":
		// Go reports concurrent map accesses only when they overlap:
		// both released at the same instant, a bounded number of times.
		if len(w.Events) < 2 || !strings.HasPrefix(w.Events[0].Role, "map-") || !strings.HasPrefix(w.Events[1].Role, "map-") {
			return nil, fmt.Errorf("the witness has no two map accesses")
		}
		a, b := w.Events[0], w.Events[1]
		return []Order{{What: "the two map accesses released at the same instant", Repeat: MapRepeat,
			Together: [][]plan.Point{{point(a), point(b)}}}}, nil
	case "oscs":
		return oscsOrders(f, w)
	case races.Kind:
		// First the two accesses held until both came and released
		// together: they were pending at once, so nothing orders them
		// (a hand-off the trace cannot see, a pool inside a
		// dependency, lets the second owner reach its access only
		// once the first passed the object on: it never comes, or
		// comes on other memory). Then the two adjacent, in the
		// recorded order and the other way round: a race is confirmed
		// when all three can be made to happen (Validator.race).
		if len(w.Events) != 2 {
			return nil, fmt.Errorf("the witness has %d events, want the two accesses", len(w.Events))
		}
		a, b := w.Events[0], w.Events[1]
		if b.Index < a.Index {
			a, b = b, a
		}
		name := func(e finding.Event) string { return "the " + e.Role + " at " + shortPos(siteOf(f, e)) }
		return []Order{
			{What: name(a) + " and " + name(b) + " held until both came, then let go together", Together: [][]plan.Point{{point(a), point(b)}}},
			{What: name(a) + " right before " + name(b), Edges: []plan.Edge{edge(a, b)}},
			{What: name(b) + " right before " + name(a), Edges: []plan.Edge{edge(b, a)}},
		}, nil
	}
	if strings.HasPrefix(f.Kind, "unicorn-p") {
		return unicornOrders(w)
	}
	return nil, fmt.Errorf("no way to force a %s finding yet", f.Kind)
}

// oscsOrders reverses the two critical sections of an OSCS finding: the
// section the run recorded second runs entirely before the other (its
// Unlock before the other's Lock). When the section the report names on
// one side is the second of a pair of that goroutine's sections, the other
// goroutine's section then falls between the pair, the atomicity
// violation OSCS predicts; when it is the first of the pair, the
// atomicity orders after the reversal put the other section there.
func oscsOrders(f finding.Finding, w finding.Witness) ([]Order, error) {
	if len(f.Sites) != 4 || len(w.Events) < 4 {
		return nil, fmt.Errorf("the witness has %d events, want the two accesses and their locks", len(w.Events))
	}
	ev := roles(f, w)
	lock := [2]finding.Event{w.Events[2], w.Events[3]}
	access := [2]finding.Event{w.Events[0], w.Events[1]}
	first, second := 0, 1
	if access[1].Index < access[0].Index {
		first, second = 1, 0
	}
	// One section entirely before the other: its Unlock (or, if the run
	// did not record it, its access) before the other's Lock.
	order := func(a, b int) Order {
		what := fmt.Sprintf("the critical section of the %s at %s before that of the %s at %s",
			f.Sites[a].Role, shortPos(f.Sites[a]), f.Sites[b].Role, shortPos(f.Sites[b]))
		return Order{What: what, Edges: []plan.Edge{edge(sectionEnd(ev, access, a), lock[b])}}
	}
	// The reversal first; then the recorded order, held tight, which
	// fails where the recording's slack hid the bug; then the
	// atomicity violations, one goroutine's two sections with the
	// other's between.
	orders := []Order{order(second, first), order(first, second)}
	return append(orders, atomicityOrders(f, ev, access, lock, first, second)...), nil
}

// atomicityOrders returns the orders that run one side's critical section
// between two consecutive sections of the other side's goroutine on the
// same lock (OSCS Fig. 3c, oscs.txt section 2.2), when the witness names
// them (detect/oscs's "prev-" and "next-" events): the side the run
// recorded first between the second's previous section and its own, and
// the second side's section, with the section its goroutine takes next,
// between the first's and the first's next. The other side's next section
// goes along because an update split over two sections (a row, then its
// log entry: MySQL2-AM) fails only when the whole of one update falls
// inside the other. Each order's control runs the same sections one
// goroutine after the other (the serial order, which must pass), since
// reversing both of its edges would hold a goroutine at an Unlock until
// another took the lock it holds.
//
// An order the recorded run already followed (it passed) is left out.
func atomicityOrders(f finding.Finding, ev map[string][]finding.Event, access, lock [2]finding.Event, first, second int) []Order {
	end := func(k int) finding.Event { return sectionEnd(ev, access, k) }
	adjacent := func(k int, which string) (lk, unlk finding.Event, ok bool) {
		l, u := ev[fmt.Sprintf("%s-lock-%d", which, k+1)], ev[fmt.Sprintf("%s-unlock-%d", which, k+1)]
		if len(l) == 0 || len(u) == 0 {
			return finding.Event{}, finding.Event{}, false
		}
		return l[0], u[0], true
	}
	name := func(k int) string { return fmt.Sprintf("the %s at %s", f.Sites[k].Role, shortPos(f.Sites[k])) }
	var out []Order
	// The second side's section (and its next) between the first's and
	// the first's next; the control runs the first's two before it.
	if nl, nu, ok := adjacent(first, "next"); ok {
		last, what := end(second), ""
		if _, su, ok := adjacent(second, "next"); ok {
			last, what = su, " and its goroutine's next"
		}
		if followed := lock[second].Index > end(first).Index && last.Index < nl.Index; !followed {
			out = append(out, Order{
				What:    fmt.Sprintf("the critical section of %s%s between that of %s and its goroutine's next", name(second), what, name(first)),
				Edges:   []plan.Edge{edge(end(first), lock[second]), edge(last, nl)},
				Control: []plan.Edge{edge(nu, lock[second])},
			})
		}
	}
	// The first side's section between the second's previous one and
	// its own; the control runs it before both.
	if pl, pu, ok := adjacent(second, "prev"); ok && lock[first].Index < pu.Index {
		out = append(out, Order{
			What:    fmt.Sprintf("the critical section of %s between that of %s and its goroutine's previous", name(first), name(second)),
			Edges:   []plan.Edge{edge(pu, lock[first]), edge(end(first), lock[second])},
			Control: []plan.Edge{edge(end(first), pl)},
		})
	}
	return out
}

// sectionEnd is the event that ends side k's critical section: its Unlock,
// or its access if the run did not record the Unlock.
func sectionEnd(ev map[string][]finding.Event, access [2]finding.Event, k int) finding.Event {
	if u := ev[fmt.Sprintf("unlock-%d", k+1)]; len(u) > 0 {
		return u[0]
	}
	return access[k]
}

// unicornOrders forces the pattern's accesses in the order of the failing
// run they were found in: each access waits for the access before it on
// the other goroutine (accesses of one goroutine keep their program order).
// The witness lists them in that order, the pattern's: in a run forced by
// targeted perturbation it need not be the order of their indices in the
// trace (detect/unicorn's runOrder).
func unicornOrders(w finding.Witness) ([]Order, error) {
	if len(w.Events) < 2 {
		return nil, fmt.Errorf("the witness names %d of the pattern's accesses", len(w.Events))
	}
	evs := w.Events
	o := Order{}
	var labels []string
	for i, e := range evs {
		labels = append(labels, e.Role)
		if i > 0 && evs[i-1].G != e.G {
			o.Edges = append(o.Edges, edge(evs[i-1], e))
		}
	}
	if len(o.Edges) == 0 {
		return nil, fmt.Errorf("the pattern's accesses are all on one goroutine")
	}
	o.What = "the pattern's accesses in the failing order " + strings.Join(labels, " ")
	return []Order{o}, nil
}

// Reversal is the order that makes access second (of one goroutine) come
// before access first (of another), the two as a run recorded them in the
// other order: targeted perturbation's forced run (pipeline/predict). When
// first is inside a critical section whose Lock the event names, its
// goroutine is held back at that Lock instead, as lifted does for
// validation: held inside the section, it would keep second's goroutine out
// of a section on the same lock until the wait timed out.
func Reversal(first, second finding.Event) Order {
	o := Order{What: "the access at site " + fmt.Sprint(second.Site) + " before the one at site " + fmt.Sprint(first.Site),
		Edges: []plan.Edge{edge(second, first)}}
	if l := lifted([]Order{o}, finding.Witness{Events: []finding.Event{first, second}}); len(l) > 0 {
		return l[0]
	}
	return o
}

// between returns, when the witness has a write that its goroutine
// overwrites with no sync event between ("write-at", "write-next"; see
// detect/conmem's withNext), the order that runs use between the two:
// released right after its write, the writer would usually overwrite the
// value before the released reader reads it. With the reader's check
// ("check"), the check comes before the write. Tried after the orders
// that leave the writer free.
func between(ev map[string][]finding.Event, use finding.Event, what string) []Order {
	at, next := ev["write-at"], ev["write-next"]
	if len(at) == 0 || len(next) == 0 {
		return nil
	}
	o := Order{What: what}
	if c := ev["check"]; len(c) > 0 {
		o.Edges = append(o.Edges, edge(c[0], at[0]))
	}
	o.Edges = append(o.Edges, edge(at[0], use), edge(use, next[0]))
	return []Order{o}
}

// roles indexes the witness's events by role.
// siteOf returns the site of f that witness event e ran at.
func siteOf(f finding.Finding, e finding.Event) finding.Site {
	for _, s := range f.Sites {
		if s.ID == e.Site {
			return s
		}
	}
	return finding.Site{File: "?"}
}

func roles(f finding.Finding, w finding.Witness) map[string][]finding.Event {
	m := make(map[string][]finding.Event)
	for _, e := range w.Events {
		m[e.Role] = append(m[e.Role], e)
	}
	return m
}

func edge(before, after finding.Event) plan.Edge {
	return plan.Edge{Before: point(before), After: point(after)}
}

func point(e finding.Event) plan.Point {
	return plan.Point{G: e.G, Site: e.Site, N: e.N}
}

func shortPos(s finding.Site) string {
	f := s.File
	if i := strings.LastIndexByte(f, '/'); i >= 0 {
		f = f[i+1:]
	}
	return fmt.Sprintf("%s:%d", f, s.Line)
}
