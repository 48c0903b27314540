package report

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/pipeline/validate"
)

// A timeline is the picture of a finding's interleaving: one lane per
// goroutine, the finding's events left to right in the order drawn (the
// forced or predicted one, each goroutine's events in their program
// order), and an arrow for each step of the order. A recorded run gives
// only the order of its events, not their times, so the x axis is an
// order, not a clock.
type timeline struct {
	Width, Height int
	AxisX         int
	Lanes         []tlLane
	Events        []tlEvent
	Arrows        []tlArrow
	Bars          []tlBar
	// Source says where the drawn order comes from: "forced", "predicted",
	// "static" or "recorded" (no order to draw).
	Source string
	// Style is the arrows' style: the source's, except "tried" for a
	// forced order that did not confirm the finding.
	Style string
	// Caption says what the picture shows, Recorded the order the run
	// recorded, in words; Note what is missing from it.
	Caption, Recorded, Note string
	// siteLane names the lane of each of the finding's sites drawn, by
	// the site's index.
	siteLane map[int]string
}

type tlLane struct {
	Y, SubY, LineX1, LineX2 int
	Label, Sub              string
	// below says the lane's event labels go below it (the last of two
	// or more lanes, or a lone lane), so that the arrows between lanes
	// cross none.
	below bool
}

type tlEvent struct {
	X, Y      int
	Role      string
	Where     string // file:line of the finding's site the event ran at, or the site's ID
	Expr      string
	Rec       string // its rank in the recorded run, "#3"
	FromSite  bool   // a site of the finding, not a helper event such as the check
	LabelY    int
	WhereY    int
	ExprY     int
	RecY      int
	TitleText string
}

type tlArrow struct {
	D              string // SVG path
	Label          string
	LabelX, LabelY int
}

type tlBar struct {
	X1, Y1, H, TextX, TextY int
	Text                    string
}

// Geometry of the picture, in pixels.
const (
	tlLeft   = 230 // the lane labels
	tlCol    = 170 // one event per column
	tlLaneH  = 130
	tlTop    = 100 // room for the first lane's labels
	tlRadius = 8
)

// labels returns the y of an event's four label lines (role, where,
// expression, recorded rank) on lane l: a block above the lane, or below.
func (l tlLane) labels() (role, where, expr, rec int) {
	top := l.Y - 58
	if l.below {
		top = l.Y + 24
	}
	return top, top + 14, top + 28, top + 42
}

// node is one event in the picture.
type node struct {
	e    finding.Event
	site int // index in the finding's sites, -1 for a helper event
	col  int
}

type point struct {
	g    uint64
	site uint32
	n    uint64
}

func pointOf(e finding.Event) point { return point{e.G, e.Site, e.N} }

// buildTimeline lays out the timeline of f; dir shortens file names.
func buildTimeline(dir string, f finding.Finding) *timeline {
	t := &timeline{}
	w, order, static := timelineOrder(f, t)
	t.Style = t.Source
	if t.Source == "forced" && f.Status != finding.Confirmed {
		t.Style = "tried"
	}
	if w == nil {
		return failureTimeline(dir, f, t)
	}
	nodes := make(map[point]*node)
	var list []*node
	taken := make(map[int]bool)
	add := func(e finding.Event) {
		p := pointOf(e)
		if _, ok := nodes[p]; ok {
			return
		}
		e.Lock = nil
		n := &node{e: e, site: siteOfEvent(f, e, static, taken)}
		taken[n.site] = true
		nodes[p] = n
		list = append(list, n)
	}
	for _, e := range w.Events {
		add(e)
	}
	if order != nil {
		for _, e := range order.Edges {
			add(e.Before)
			add(e.After)
		}
		for _, g := range order.Together {
			for _, e := range g {
				add(e)
			}
		}
	}
	// The recorded order, and each event's rank in it.
	rec := slices.Clone(list)
	slices.SortStableFunc(rec, func(a, b *node) int { return cmp.Compare(recIndex(a), recIndex(b)) })
	var recWords []string
	rank := make(map[*node]int)
	for i, n := range rec {
		rank[n] = i + 1
		if n.e.Index >= 0 && !static {
			recWords = append(recWords, n.e.Role)
		}
	}
	if len(recWords) > 1 {
		t.Recorded = "recorded run: " + strings.Join(recWords, " → ")
	}
	cols, ok := layout(list, order, nodes)
	if !ok {
		t.Note = "the order's steps contradict the goroutines' recorded program order: the events are drawn in the recorded order"
		order = nil
		for i, n := range rec {
			n.col = i
		}
		cols = len(rec)
	}

	// Lanes, in the order of each goroutine's first event.
	byCol := slices.Clone(list)
	slices.SortStableFunc(byCol, func(a, b *node) int { return cmp.Compare(a.col, b.col) })
	laneOf := make(map[uint64]int)
	for _, n := range byCol {
		if _, ok := laneOf[n.e.G]; !ok {
			laneOf[n.e.G] = len(t.Lanes)
			y := tlTop + len(t.Lanes)*tlLaneH
			t.Lanes = append(t.Lanes, tlLane{Y: y, SubY: y + 16})
		}
	}
	for g, i := range laneOf {
		t.Lanes[i].Label, t.Lanes[i].Sub = laneLabel(dir, f, list, g, i, static)
	}
	t.siteLane = make(map[int]string)
	for _, n := range list {
		if n.site >= 0 {
			t.siteLane[n.site] = "G" + strconv.Itoa(laneOf[n.e.G]+1)
		}
	}
	x := func(col int) int { return tlLeft + tlCol/2 + col*tlCol }
	for i := range t.Lanes {
		t.Lanes[i].LineX1, t.Lanes[i].LineX2 = tlLeft, x(cols-1)+tlCol/2
	}
	t.Lanes[len(t.Lanes)-1].below = true
	for _, n := range byCol {
		l := t.Lanes[laneOf[n.e.G]]
		ev := tlEvent{X: x(n.col), Y: l.Y, Role: n.e.Role, FromSite: n.site >= 0}
		ev.LabelY, ev.WhereY, ev.ExprY, ev.RecY = l.labels()
		if n.site >= 0 {
			s := f.Sites[n.site]
			ev.Where = shortSite(dir, s)
			ev.Expr = clip(s.Expr, 24)
		} else if n.e.Site != 0 && !static {
			ev.Where = "site " + strconv.FormatUint(uint64(n.e.Site), 10)
		}
		if !static && n.e.Index >= 0 {
			ev.Rec = "#" + strconv.Itoa(rank[n]) + " recorded"
		}
		ev.TitleText = strings.TrimSpace(n.e.Role + " " + ev.Where + " " + n.e.Kind)
		t.Events = append(t.Events, ev)
	}
	if order != nil {
		for i, e := range order.Edges {
			a, b := nodes[pointOf(e.Before)], nodes[pointOf(e.After)]
			la := t.Lanes[laneOf[a.e.G]]
			t.Arrows = append(t.Arrows, arrow(x(a.col), la.Y, x(b.col), t.Lanes[laneOf[b.e.G]].Y, !la.below, stepLabel(t.Source, len(order.Edges), i)))
		}
		for _, g := range order.Together {
			y1, y2 := 1<<30, 0
			for _, e := range g {
				y := t.Lanes[laneOf[e.G]].Y
				y1, y2 = min(y1, y), max(y2, y)
			}
			bx := x(nodes[pointOf(g[0])].col)
			t.Bars = append(t.Bars, tlBar{X1: bx - 18, Y1: y1 - 16, H: y2 - y1 + 32, TextX: bx + 24, TextY: (y1 + y2) / 2, Text: "released together"})
		}
	}
	t.Width = x(cols-1) + tlCol/2 + 10
	for _, b := range t.Bars {
		t.Width = max(t.Width, b.TextX+130)
	}
	t.AxisX = tlLeft
	t.Height = t.Lanes[len(t.Lanes)-1].Y + 76
	return t
}

// timelineOrder returns the witness to draw and the order between its
// events, and fills t's source and caption: the order validation forced,
// else the one it would force (a prediction), else, for a static finding,
// the one the check warns of between its sites, each on a goroutine of its
// own. It returns a nil witness for a finding with no two sides to draw.
func timelineOrder(f finding.Finding, t *timeline) (w *finding.Witness, o *finding.Order, static bool) {
	if v := f.Validation; v != nil && v.Order != nil {
		for i := range f.Witnesses {
			if f.Witnesses[i].Test == v.Test && f.Witnesses[i].Run == v.Order.Run {
				w = &f.Witnesses[i]
				break
			}
		}
		if w == nil {
			// The witness is not kept: the order's own events.
			w = &finding.Witness{Test: v.Test, Run: v.Order.Run}
		}
		t.Source = "forced"
		t.Caption = "forced in " + v.Test + ": " + v.Order.What
		switch {
		case f.Status == finding.Confirmed && v.Effect == "reordered":
			t.Caption += " (the accesses ran in both orders in forced runs; this is the last order forced)"
		case f.Status == finding.Confirmed:
			t.Caption += " (the test failed)"
		case f.Status == finding.NotConfirmed:
			t.Caption += " (the order held and nothing failed)"
		case f.Status == finding.Diverged:
			t.Caption += " (the run could not follow it)"
		case f.Status == finding.TimedOut:
			t.Caption += " (it ran out of time)"
		case f.Status == finding.Apart:
			t.Caption += " (the order held, but the two accesses touched different memory)"
		}
		return w, v.Order, false
	}
	if len(f.Witnesses) > 0 {
		w = &f.Witnesses[0]
		t.Source = "predicted"
		if ords, err := validate.Orders(f, *w); err == nil && len(ords) > 0 {
			t.Caption = "predicted, not forced: " + ords[0].What
			if f.Status == finding.Confirmed {
				// Confirmed by a recorded run's failure at its site.
				t.Caption = "not forced, since a recorded run failed with it; the order validation would force: " + ords[0].What
			}
			return w, ords[0].Steps(*w), false
		}
		t.Source = "recorded"
		t.Caption = "the events as recorded in " + w.Test + "; no order to force is known for this finding"
		return w, nil, false
	}
	if f.Status != finding.Static {
		return nil, nil, false
	}
	// A static finding: nothing ran. One lane per site with a role.
	sw := finding.Witness{}
	for i, s := range f.Sites {
		if s.Role == "" {
			continue
		}
		sw.Events = append(sw.Events, finding.Event{Role: s.Role, G: uint64(i + 1), Site: uint32(i + 1), Index: i})
	}
	if len(sw.Events) < 2 {
		return nil, nil, false
	}
	t.Source = "static"
	t.Note = "static finding: nothing ran, so which goroutine runs each site is not known; one lane per site"
	if ords, err := validate.Orders(f, sw); err == nil && len(ords) > 0 {
		t.Caption = "the order the check warns of: " + ords[0].What
		return &sw, ords[0].Steps(sw), true
	}
	t.Caption = "the sites the check names; it gives no order between them"
	return &sw, nil, true
}

// failureTimeline draws a finding without two sides: a recorded run's own
// failure (one goroutine, where it failed) or a finding with one site.
func failureTimeline(dir string, f finding.Finding, t *timeline) *timeline {
	if len(f.Sites) == 0 {
		return nil
	}
	s := f.Sites[0]
	t.Source = "recorded"
	t.Caption = "no interleaving to force: the finding has one site"
	if f.Kind == finding.Crash || f.Kind == finding.TestFailed {
		t.Caption = "the recorded run failed here; nothing was forced"
	}
	y := tlTop
	label := "test goroutine"
	if s.Function != "" {
		label = "goroutine in " + s.Function
	}
	l := tlLane{Y: y, SubY: y + 16, LineX1: tlLeft, LineX2: tlLeft + tlCol, Label: clip(label, 34)}
	ev := tlEvent{X: tlLeft + tlCol/2, Y: y, Role: cmp.Or(s.Role, f.Kind), Where: shortSite(dir, s), FromSite: true,
		TitleText: s.Role + " " + shortSite(dir, s)}
	ev.LabelY, ev.WhereY, ev.ExprY, ev.RecY = l.labels()
	t.Lanes, t.Events = []tlLane{l}, []tlEvent{ev}
	t.Width, t.Height, t.AxisX = tlLeft+tlCol+10, y+30, tlLeft
	t.siteLane = map[int]string{0: "G1"}
	return t
}

// layout assigns each node a column: a topological order of the order's
// edges and each goroutine's program order (its events' recorded order),
// ties broken by the recorded order, with events released together in one
// column. It returns the number of columns, false if the constraints have
// a cycle.
func layout(list []*node, o *finding.Order, nodes map[point]*node) (int, bool) {
	succ := make(map[*node][]*node)
	indeg := make(map[*node]int)
	edge := func(a, b *node) {
		if a == nil || b == nil || a == b {
			return
		}
		succ[a] = append(succ[a], b)
		indeg[b]++
	}
	byG := make(map[uint64][]*node)
	for _, n := range list {
		byG[n.e.G] = append(byG[n.e.G], n)
	}
	for _, ns := range byG {
		ns = slices.Clone(ns)
		slices.SortStableFunc(ns, func(a, b *node) int { return cmp.Compare(recIndex(a), recIndex(b)) })
		for i := 1; i < len(ns); i++ {
			if ns[i-1].e.Index >= 0 && ns[i].e.Index >= 0 {
				edge(ns[i-1], ns[i])
			}
		}
	}
	group := make(map[*node][]*node)
	if o != nil {
		for _, e := range o.Edges {
			edge(nodes[pointOf(e.Before)], nodes[pointOf(e.After)])
		}
		for _, g := range o.Together {
			var ns []*node
			for _, e := range g {
				ns = append(ns, nodes[pointOf(e)])
			}
			for _, n := range ns {
				group[n] = ns
			}
		}
	}
	placed := make(map[*node]bool)
	col := 0
	for len(placed) < len(list) {
		// The ready node first in the recorded order.
		var next *node
		for _, n := range list {
			if !placed[n] && indeg[n] == 0 && (next == nil || recIndex(n) < recIndex(next)) {
				next = n
			}
		}
		if next == nil {
			return 0, false
		}
		batch := []*node{next}
		for _, m := range group[next] {
			if m != next && !placed[m] && indeg[m] == 0 {
				batch = append(batch, m)
			}
		}
		for _, n := range batch {
			placed[n] = true
			n.col = col
			for _, s := range succ[n] {
				indeg[s]--
			}
		}
		col++
	}
	return col, true
}

// recIndex orders events by their place in the recorded run; an event the
// run did not place goes last.
func recIndex(n *node) int {
	if n.e.Index < 0 {
		return 1 << 40
	}
	return n.e.Index
}

// siteOfEvent returns the index of the finding's site event e ran at, -1
// if none: the first site not taken by another event with e's role and
// site ID, else with its site ID (a static witness's site IDs are site
// indexes plus one).
func siteOfEvent(f finding.Finding, e finding.Event, static bool, taken map[int]bool) int {
	if static {
		return int(e.Site) - 1
	}
	if e.Site == 0 {
		return -1
	}
	alt := -1
	for i, s := range f.Sites {
		if s.ID != e.Site || taken[i] {
			continue
		}
		if s.Role == e.Role {
			return i
		}
		if alt < 0 && e.Role != "check" && !strings.HasPrefix(e.Role, "unlock") {
			alt = i
		}
	}
	return alt
}

// laneLabel names goroutine g's lane: by the go statement that started it
// (the spawn of one of its sites), or as the test's goroutine.
func laneLabel(dir string, f finding.Finding, list []*node, g uint64, i int, static bool) (string, string) {
	name := "G" + strconv.Itoa(i+1)
	if static {
		for _, n := range list {
			if n.e.G == g && n.site >= 0 {
				return name + ": the " + f.Sites[n.site].Role, "goroutine not known"
			}
		}
		return name, ""
	}
	for _, n := range list {
		if n.e.G != g || n.site < 0 {
			continue
		}
		if n.site < len(f.Spawns) && f.Spawns[n.site].File != "" {
			sp := f.Spawns[n.site]
			sub := "go at " + shortSite(dir, sp)
			if sp.Function != "" {
				sub += " in " + sp.Function
			}
			return name, clip(sub, 40)
		}
		if n.site < len(f.Spawns) && f.Spawns[n.site].IsUnseenSpawn() {
			return name, "go outside the instrumented code"
		}
		if f.Sites[n.site].Goroutine == "" {
			return name, "the test's goroutine"
		}
		return name, clip("go at "+filepath.Base(f.Sites[n.site].Goroutine), 40)
	}
	return name, ""
}

// stepLabel labels step i of n of an order from source.
func stepLabel(source string, n, i int) string {
	word := map[string]string{"forced": "forced", "predicted": "predicted", "static": "warned"}[source]
	if n > 1 {
		word += " " + strconv.Itoa(i+1)
	}
	return word
}

// arrow returns the arrow from (x1, y1) to (x2, y2): a straight line
// between lanes, an arc within one, below it if under is set, else above.
func arrow(x1, y1, x2, y2 int, under bool, label string) tlArrow {
	if y1 == y2 {
		mid, d := (x1+x2)/2, -1
		if under {
			d = 1
		}
		return tlArrow{D: fmt.Sprintf("M %d %d Q %d %d %d %d", x1+4, y1+d*(tlRadius+2), mid, y1+d*60, x2-4, y2+d*(tlRadius+4)),
			Label: label, LabelX: mid - 20, LabelY: y1 + d*36}
	}
	dy := tlRadius + 4
	if y2 < y1 {
		dy = -dy
	}
	sx, sy, ex, ey := x1, y1+dy, x2, y2-dy
	return tlArrow{D: fmt.Sprintf("M %d %d L %d %d", sx, sy, ex, ey), Label: label, LabelX: (sx+ex)/2 + 8, LabelY: (sy + ey) / 2}
}

// shortSite is a site's file base name and line.
func shortSite(dir string, s finding.Site) string {
	if s.File == "" {
		return s.Expr
	}
	return filepath.Base(relPath(dir, s.File)) + ":" + strconv.Itoa(s.Line)
}

// clip shortens s to n runes with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
