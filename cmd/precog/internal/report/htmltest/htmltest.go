// Package htmltest checks, in tests, what an HTML report (report.HTML)
// shows once a browser has loaded it: the DOM that headless Chromium
// dumps (internal/headless), against the findings the report was made of.
package htmltest

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/precog-dev/precog/detect/finding"
)

var (
	sectionRE = regexp.MustCompile(`(?s)<section class="finding" id="f\d+" data-status="([^"]*)" data-kind="([^"]*)">(.*?)</section>`)
	h2RE      = regexp.MustCompile(`(?s)<h2>(.*?)</h2>`)
	idRE      = regexp.MustCompile(`· id <code>([0-9a-f]+)</code>`)
	svgRE     = regexp.MustCompile(`(?s)<svg class="timeline" data-source="([^"]*)".*?</svg>`)
)

// escape is how a browser serializes text in the DOM.
var escape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\u00a0", "&nbsp;").Replace

// statusRank orders statuses as the report must: strongest first, and
// those set apart last.
var statusRank = []finding.Status{finding.Confirmed, finding.NotConfirmed, finding.Diverged, finding.TimedOut, finding.Predicted, finding.NotReached, finding.Static, finding.Apart}

// apartRE opens the closed section of the findings set apart.
var apartRE = regexp.MustCompile(`<details class="apart" id="apart">`)

// Check returns every way the rendered DOM dom fails to show fs (less
// internal errors): one section per finding, confirmed ones first and the
// rest by status, each with its kind, status, message and ID in its
// title, its reproducer (or none for a finding without one), a timeline
// with one lane per goroutine of the order drawn, drawn from the forced
// order when validation forced one, and one panel per site; the findings
// set apart (finding.Apart) last, inside a section closed by default, and
// no other finding there.
func Check(dom string, fs []finding.Finding) error {
	byID := make(map[string]finding.Finding)
	for _, f := range fs {
		if f.Kind != finding.InternalError {
			byID[f.ID] = f
		}
	}
	var errs []error
	sections := sectionRE.FindAllStringSubmatch(dom, -1)
	at := sectionRE.FindAllStringIndex(dom, -1)
	if len(sections) != len(byID) {
		errs = append(errs, fmt.Errorf("%d finding sections, want %d", len(sections), len(byID)))
	}
	apartAt := len(dom) // where the closed section of those set apart begins
	if m := apartRE.FindStringIndex(dom); m != nil {
		apartAt = m[0]
	}
	last := 0
	seen := make(map[string]bool)
	for i, s := range sections {
		status, kind, body := s[1], s[2], s[3]
		if inside := at[i][0] > apartAt; inside != (status == string(finding.Apart)) {
			where := "outside"
			if inside {
				where = "inside"
			}
			errs = append(errs, fmt.Errorf("the section of a %s %s is %s the closed section of the findings set apart", status, kind, where))
		}
		m := idRE.FindStringSubmatch(body)
		if m == nil {
			errs = append(errs, fmt.Errorf("a %s %s section without an ID", status, kind))
			continue
		}
		f, ok := byID[m[1]]
		if !ok || seen[m[1]] {
			errs = append(errs, fmt.Errorf("section of %s: not a finding, or shown twice", m[1]))
			continue
		}
		seen[f.ID] = true
		if err := checkSection(f, status, kind, body); err != nil {
			errs = append(errs, fmt.Errorf("finding %s (%s): %w", f.ID, f.Kind, err))
		}
		r := slices.Index(statusRank, f.Status)
		if r < last {
			errs = append(errs, fmt.Errorf("finding %s is %s, after a finding of a weaker status", f.ID, f.Status))
		}
		last = max(last, r)
	}
	return errors.Join(errs...)
}

func checkSection(f finding.Finding, status, kind, body string) error {
	var errs []error
	if status != string(f.Status) || kind != f.Kind {
		errs = append(errs, fmt.Errorf("section says %s %s", status, kind))
	}
	title := h2RE.FindStringSubmatch(body)
	switch {
	case title == nil:
		errs = append(errs, fmt.Errorf("no title"))
	case !strings.Contains(title[1], `<span class="badge `+string(f.Status)+`">`+string(f.Status)+`</span>`) ||
		!strings.Contains(title[1], `<span class="kind">`+f.Kind+`</span>`) ||
		!strings.Contains(title[1], `<span class="msg">`+escape(f.Message)+`</span>`):
		errs = append(errs, fmt.Errorf("title %q lacks the status, kind or message", title[1]))
	}
	if f.Repro != "" && !strings.Contains(body, `<pre class="repro">`+escape(f.Repro)+`</pre>`) {
		errs = append(errs, fmt.Errorf("no reproducer %q", f.Repro))
	}
	if f.Repro == "" && !strings.Contains(body, "No reproducer") {
		errs = append(errs, fmt.Errorf("no reproducer, and no word saying so"))
	}
	lanes, source := goroutines(f)
	svg := svgRE.FindStringSubmatch(body)
	switch {
	case svg == nil && lanes > 0:
		errs = append(errs, fmt.Errorf("no timeline"))
	case svg != nil:
		if n := strings.Count(svg[0], `<g class="lane">`); n != max(lanes, 1) {
			errs = append(errs, fmt.Errorf("timeline has %d goroutine lanes, want %d", n, max(lanes, 1)))
		}
		if source != "" && svg[1] != source {
			errs = append(errs, fmt.Errorf("timeline drawn from the %s order, want %s", svg[1], source))
		}
		style := "forced"
		if f.Status != finding.Confirmed {
			style = "tried"
		}
		if source == "forced" && !strings.Contains(svg[0], `<path class="arrow `+style+`"`) && len(f.Validation.Order.Together) == 0 {
			errs = append(errs, fmt.Errorf("no arrow of the forced order"))
		}
	}
	if n, want := strings.Count(body, `<div class="side">`), sides(f); n != want {
		errs = append(errs, fmt.Errorf("%d goroutine panels, want %d", n, want))
	}
	return errors.Join(errs...)
}

// goroutines returns how many goroutine lanes f's timeline has (0: it
// has one only if it has a site) and the order it must be drawn from:
// forced when validation forced one ("" when that is not known here).
func goroutines(f finding.Finding) (int, string) {
	if v := f.Validation; v != nil && v.Order != nil {
		gs := make(map[uint64]bool)
		for _, w := range f.Witnesses {
			if w.Test == v.Test && w.Run == v.Order.Run {
				for _, e := range w.Events {
					gs[e.G] = true
				}
				break
			}
		}
		for _, e := range v.Order.Edges {
			gs[e.Before.G], gs[e.After.G] = true, true
		}
		for _, g := range v.Order.Together {
			for _, e := range g {
				gs[e.G] = true
			}
		}
		return len(gs), "forced"
	}
	if len(f.Witnesses) > 0 {
		gs := make(map[uint64]bool)
		for _, e := range f.Witnesses[0].Events {
			gs[e.G] = true
		}
		return len(gs), ""
	}
	if f.Status == finding.Static && sides(f) > 1 {
		return sides(f), "static"
	}
	return 0, ""
}

// sides returns how many sites the report shows side by side: those with
// a role, or the first.
func sides(f finding.Finding) int {
	n := 0
	for _, s := range f.Sites {
		if s.Role != "" {
			n++
		}
	}
	return max(n, min(len(f.Sites), 1))
}
