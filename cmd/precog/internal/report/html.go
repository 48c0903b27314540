package report

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/detect/finding"
)

// HTMLRun describes the run whose findings an HTML report shows.
type HTMLRun struct {
	// Title names the command, such as "precog test".
	Title string
	// Command is the command line; Dir is where it ran, and file names
	// under it are shown relative to it.
	Command, Dir string
	// Start is when the run started: a source file modified after it is
	// shown with a warning that it may not be the code that ran. Elapsed
	// is how long the run took (0: not shown).
	Start   time.Time
	Elapsed time.Duration
	// Summary holds lines of the run's summary, as the command prints
	// them on stderr.
	Summary []string
	// Errors are internal errors of precog's checkers.
	Errors []string
}

// HTML writes the report of a run as one self-contained HTML page: a
// summary (findings by status, the run's time and totals), then each
// finding, confirmed ones first, with its status and reproducer, a
// timeline of its goroutines with the forced or predicted order between
// its sites, its goroutines' stacks side by side, and each site in its
// source, read from the files now. The findings set apart
// (finding.Apart: false predictions, which precog test's text leaves
// out) come last, in a section closed until the reader opens it, and are
// not in the list at the top. The page loads nothing: its style and
// pictures are inline and it has no script.
func HTML(w io.Writer, run HTMLRun, fs []finding.Finding) error {
	pg := htmlPage{Run: run, Version: cli.Version(), Title: cmp.Or(run.Title, "precog")}
	if !run.Start.IsZero() {
		pg.Started = run.Start.UTC().Format(time.DateTime) + " UTC"
	}
	if run.Elapsed > 0 {
		pg.Elapsed = cli.Round(run.Elapsed).String()
	}
	src := newSources(run.Start)
	counts := make(map[finding.Status]int)
	var shown []finding.Finding
	for _, f := range fs {
		if f.Kind == finding.InternalError {
			pg.Errors = append(pg.Errors, f.Message)
			continue
		}
		shown = append(shown, f)
		counts[f.Status]++
	}
	pg.Errors = append(pg.Errors, run.Errors...)
	for _, s := range statusOrder {
		if counts[s] > 0 {
			pg.Counts = append(pg.Counts, statusCount{Status: string(s), N: counts[s]})
		}
	}
	pg.Total = len(shown)
	for i, f := range sortForReport(shown) {
		h := htmlFindingOf(run.Dir, src, i, f)
		if f.Status == finding.Apart {
			pg.Apart = append(pg.Apart, h)
		} else {
			pg.Findings = append(pg.Findings, h)
		}
	}
	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, pg); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// HTMLFile writes the HTML report of a run to the file path.
func HTMLFile(path string, run HTMLRun, fs []finding.Finding) error {
	var buf bytes.Buffer
	if err := HTML(&buf, run, fs); err != nil {
		return fmt.Errorf("writing the html report: %w", err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o666); err != nil {
		return fmt.Errorf("writing the html report: %w", err)
	}
	return nil
}

// statusOrder is the order of statuses in the report: strongest first,
// and those set apart last, in their own section.
var statusOrder = []finding.Status{finding.Confirmed, finding.NotConfirmed, finding.Diverged, finding.TimedOut, finding.Predicted, finding.NotReached, finding.Static, finding.Apart}

// sortForReport orders findings for the report, stably: by status, the
// strongest first, then as Text does, the recorded runs' failures first
// and data races last.
func sortForReport(fs []finding.Finding) []finding.Finding {
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b finding.Finding) int {
		return cmp.Or(cmp.Compare(slices.Index(statusOrder, a.Status), slices.Index(statusOrder, b.Status)),
			cmp.Compare(kindRank(a.Kind), kindRank(b.Kind)))
	})
	return fs
}

type htmlPage struct {
	Title            string
	Run              HTMLRun
	Version          string
	Started, Elapsed string
	Total            int
	Counts           []statusCount
	Findings         []htmlFinding
	// Apart are the findings set apart, shown last and closed.
	Apart  []htmlFinding
	Errors []string
}

type statusCount struct {
	Status string
	N      int
}

type htmlFinding struct {
	N           int
	Anchor      string
	ID          string
	Kind        string
	KindSummary string
	Status      string
	Message     string
	// FailMessage is a failed test's whole message, when the headline
	// (Message) shows only its first line, or part of it.
	FailMessage string
	Pos         string
	Tests       []string
	Repro       string
	Effect      string
	Reason      string
	Runs        string
	Timeline    *timeline
	Sides       []htmlSide
	Notes       []string
	Related     []string
}

// An htmlSide is one site of a finding with the goroutine that ran it:
// the go statement, the calls open at the site, the site and its source.
type htmlSide struct {
	Title  string
	Spawn  string
	Frames []string
	Site   string
	Extra  []string // locks held, clock
	// NoStack says why there are no Frames.
	NoStack string
	Source  *snippet
	lane    string // the timeline's name of its goroutine, "" if not drawn
}

func htmlFindingOf(dir string, src *sources, i int, f finding.Finding) htmlFinding {
	h := htmlFinding{
		N:       i + 1,
		Anchor:  "f" + strconv.Itoa(i+1),
		ID:      f.ID,
		Kind:    f.Kind,
		Status:  string(f.Status),
		Message: f.Message,
		Tests:   f.Tests,
		Repro:   f.Repro,
		Notes:   f.Evidence.Notes,
	}
	if k, ok := finding.Lookup(f.Kind); ok {
		h.KindSummary = k.Summary
	}
	if len(f.Sites) > 0 {
		h.Pos = sitePos(dir, f.Sites[0])
	}
	if f.Status == finding.Static {
		h.Reason = "found by static analysis"
		if f.Analyzer != "" {
			h.Reason += " (" + f.Analyzer + ")"
		}
		h.Reason += "; nothing ran"
	}
	if v := f.Validation; v != nil {
		h.Effect, h.Reason = v.Effect, v.Reason
		if v.Runs > 0 {
			h.Runs = fmt.Sprintf("%d forced %s, %d failed", v.Runs, cli.Plural(v.Runs, "run", "runs"), v.Failed)
		}
	}
	if e := f.Evidence; e.Suspiciousness > 0 || e.FailingRuns > 0 {
		h.Notes = append(slices.Clone(h.Notes), fmt.Sprintf("suspiciousness %.2f: in %d failing and %d passing runs", e.Suspiciousness, e.FailingRuns, e.PassingRuns))
	}
	for _, r := range f.Related {
		h.Related = append(h.Related, staticPos(dir, r.File, r.Line, r.Col, f.Package)+": "+r.Message)
	}
	if carriesMessage(f) {
		// The message once: its first line in the headline, the
		// whole below it when there is more.
		msg := f.Sites[0].Expr
		head, more := messageLines(msg)
		h.Message = clipLine(strings.TrimSuffix(f.Message, msg) + head)
		if len(more) > 0 || len(h.Message) < len(f.Message)-len(msg)+len(head) {
			h.FailMessage = strings.Trim(msg, "\n")
		}
		h.Reason = dropMessage(h.Reason, msg)
	}
	h.Timeline = buildTimeline(dir, f)
	h.Sides = sides(dir, src, f, h.Timeline)
	return h
}

// sides returns the sites of f to show side by side: every site with a
// role (a static finding's first site only places it), or the first.
func sides(dir string, src *sources, f finding.Finding, t *timeline) []htmlSide {
	var out []htmlSide
	roled := slices.ContainsFunc(f.Sites, func(s finding.Site) bool { return s.Role != "" })
	for i, s := range f.Sites {
		if s.Role == "" && (roled || i > 0) {
			continue
		}
		sd := htmlSide{Title: cmp.Or(s.Role, f.Kind), Source: src.snippet(s)}
		if t != nil && t.siteLane[i] != "" {
			sd.lane = t.siteLane[i]
			sd.Title = sd.lane + ": the " + sd.Title
		}
		if i < len(f.Spawns) && f.Spawns[i].File != "" {
			sp := f.Spawns[i]
			sd.Spawn = "go statement at " + sitePos(dir, sp)
			if sp.Function != "" {
				sd.Spawn += " in " + sp.Function
			}
		} else if i < len(f.Spawns) && f.Spawns[i].IsUnseenSpawn() {
			sd.Spawn = "started outside the instrumented code (a dependency's or the standard library's go statement)"
		} else if f.Status != finding.Static && len(f.Witnesses) > 0 && s.Goroutine == "" {
			sd.Spawn = "the test's own goroutine"
		}
		if i < len(f.Stacks) {
			for _, c := range f.Stacks[i] {
				if c.File != "" {
					sd.Frames = append(sd.Frames, sitePos(dir, c)+" "+cmp.Or(c.Function, c.Expr))
				}
			}
		}
		if len(sd.Frames) == 0 && f.Status != finding.Static {
			sd.NoStack = "no call stack recorded (precog test -funcs records one)"
		}
		sd.Site = sitePos(dir, s)
		if s.Expr != "" && (i > 0 || !carriesMessage(f)) {
			// A failure's message is in the headline and its block.
			sd.Site += " " + s.Expr
		}
		if s.Function != "" {
			sd.Site += " in " + s.Function
		}
		if i < len(f.Evidence.Locks) {
			if l := f.Evidence.Locks[i]; len(l) > 0 {
				sd.Extra = append(sd.Extra, "holding "+strings.Join(l, ", "))
			} else {
				sd.Extra = append(sd.Extra, "no lock held")
			}
		}
		if i < len(f.Evidence.Clocks) && f.Evidence.Clocks[i] != "" {
			sd.Extra = append(sd.Extra, "clock "+shortClock(f.Evidence.Clocks[i]))
		}
		out = append(out, sd)
	}
	// The sites of one goroutine together, in the timeline's lane order.
	slices.SortStableFunc(out, func(a, b htmlSide) int {
		return cmp.Or(cmp.Compare(len(a.lane), len(b.lane)), cmp.Compare(a.lane, b.lane))
	})
	return out
}

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} report</title>
<style>
:root { --confirmed: #cf222e; --not-confirmed: #57606a; --diverged: #8250df; --timed-out: #9a6700; --predicted: #bf8700; --static: #0969da; --not-reached: #6e7781; --apart: #8c959f; }
body { margin: 0; font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328; background: #f6f8fa; font-size: 14px; }
code, pre, .mono { font-family: ui-monospace, Menlo, Consolas, monospace; }
header { background: #1f2328; color: #e6edf3; padding: 14px 24px; }
header h1 { margin: 0 0 6px; font-size: 20px; }
header .meta { color: #9198a1; font-size: 13px; }
header .meta code { color: #e6edf3; }
.counts { display: flex; gap: 10px; flex-wrap: wrap; margin-top: 10px; }
.count { background: #2d333b; border-radius: 6px; padding: 6px 12px; }
.count b { font-size: 18px; margin-right: 6px; }
.summary { margin: 8px 0 0; padding: 0; list-style: none; color: #c9d1d9; font-size: 13px; }
main { padding: 12px 24px 40px; }
nav ol { margin: 6px 0 16px; padding-left: 28px; }
nav li { margin: 2px 0; }
.badge { display: inline-block; border-radius: 10px; padding: 1px 9px; color: #fff; font-size: 12px; font-weight: 600; vertical-align: 1px; }
.badge.confirmed { background: var(--confirmed); }
.badge.not-confirmed { background: var(--not-confirmed); }
.badge.diverged { background: var(--diverged); }
.badge.timed-out { background: var(--timed-out); }
.badge.predicted { background: var(--predicted); }
.badge.static { background: var(--static); }
.badge.not-reached { background: var(--not-reached); }
.badge.apart { background: var(--apart); }
details.apart { margin: 24px 0 0; }
details.apart > summary { cursor: pointer; color: #57606a; font-size: 14px; }
details.apart > summary b { color: #1f2328; }
.kind { font-family: ui-monospace, Menlo, monospace; font-weight: 600; }
section.finding { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; margin: 16px 0; padding: 12px 18px 16px; }
section.finding h2 { font-size: 16px; margin: 0 0 4px; }
section.finding h2 .msg { font-weight: 500; }
.facts { color: #57606a; font-size: 13px; margin: 2px 0 8px; }
h3 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: #57606a; margin: 14px 0 6px; }
pre.repro { background: #1f2328; color: #e6edf3; padding: 8px 12px; border-radius: 6px; margin: 4px 0; overflow-x: auto; }
.reason { margin: 4px 0; }
pre.message { background: #f6f8fa; border: 1px solid #d0d7de; padding: 8px 12px; border-radius: 6px; margin: 4px 0 8px; max-height: 24em; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
.timeline-box { overflow-x: auto; border: 1px solid #d0d7de; border-radius: 6px; background: #fbfcfd; }
svg.timeline text { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; font-size: 12px; fill: #1f2328; }
svg.timeline text.role { font-weight: 600; font-size: 13px; }
svg.timeline text.dim { fill: #57606a; font-size: 11px; }
svg.timeline text.code { font-family: ui-monospace, Menlo, monospace; font-size: 11px; }
svg.timeline text.lane { font-weight: 600; font-size: 13px; }
svg.timeline line.lane { stroke: #8c959f; stroke-width: 2; }
svg.timeline circle.site { fill: #0969da; }
svg.timeline circle.helper { fill: #fff; stroke: #0969da; stroke-width: 2; }
svg.timeline path.arrow { fill: none; stroke-width: 2.5; }
svg.timeline .forced { stroke: var(--confirmed); fill: var(--confirmed); }
svg.timeline .predicted { stroke: var(--predicted); fill: var(--predicted); }
svg.timeline .static { stroke: var(--static); fill: var(--static); }
svg.timeline .tried { stroke: var(--diverged); fill: var(--diverged); }
svg.timeline text.forced, svg.timeline text.predicted, svg.timeline text.static, svg.timeline text.tried { stroke: none; font-weight: 600; font-size: 11px; }
svg.timeline rect.together { fill: none; stroke: #57606a; stroke-dasharray: 5 4; stroke-width: 2; }
.caption { margin: 6px 0 0; }
.caption .src { font-weight: 600; }
.sides { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 12px; }
.side { border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 10px; min-width: 0; }
.side h4 { margin: 0 0 6px; font-size: 14px; }
.side ol.stack { margin: 0; padding-left: 22px; font-size: 12px; }
.side ol.stack li { margin: 1px 0; }
.side ol.stack li.site { font-weight: 700; }
.side .spawn, .side .extra { font-size: 12px; color: #57606a; margin: 2px 0; }
pre.src { background: #f6f8fa; border-radius: 4px; margin: 6px 0 0; padding: 6px 0; font-size: 12px; line-height: 1.45; overflow-x: auto; }
pre.src span.line { display: block; padding: 0 8px; }
pre.src span.hit { background: #fff8c5; }
pre.src span.ln { display: inline-block; width: 3.5em; color: #8c959f; user-select: none; }
pre.src span.caret { color: var(--confirmed); font-weight: 700; }
.problem { color: #9a6700; background: #fff8c5; border-radius: 4px; padding: 3px 8px; font-size: 12px; margin-top: 6px; }
ul.notes { margin: 4px 0; padding-left: 20px; }
.errors { background: #ffebe9; border: 1px solid #ff818266; border-radius: 6px; padding: 8px 12px; }
.none { color: #57606a; }
</style>
</head>
<body>
<header>
<h1>{{.Title}} report</h1>
<div class="meta">{{if .Run.Command}}<code>{{.Run.Command}}</code>{{end}}{{if .Run.Dir}} in <code>{{.Run.Dir}}</code>{{end}}</div>
<div class="meta">{{if .Started}}started {{.Started}}{{end}}{{if .Elapsed}}, ran {{.Elapsed}}{{end}}; precog {{.Version}}</div>
<div class="counts" id="counts"><span class="count"><b>{{.Total}}</b>{{if eq .Total 1}}finding{{else}}findings{{end}}</span>{{range .Counts}}<span class="count {{.Status}}"><b>{{.N}}</b><span class="badge {{.Status}}">{{.Status}}</span></span>{{end}}</div>
{{if .Run.Summary}}<ul class="summary">{{range .Run.Summary}}<li>{{.}}</li>{{end}}</ul>{{end}}
</header>
<main>
{{if .Errors}}<div class="errors"><b>precog's own errors</b> (bugs of precog, not of the code; the other findings still stand):<ul>{{range .Errors}}<li><pre>{{.}}</pre></li>{{end}}</ul></div>{{end}}
{{if .Findings}}<nav><ol>{{range .Findings}}<li><a href="#{{.Anchor}}"><span class="badge {{.Status}}">{{.Status}}</span> <span class="kind">{{.Kind}}</span> {{.Pos}}</a></li>{{end}}</ol></nav>
{{else if .Apart}}<p class="none">No findings but those set apart, below.</p>
{{else}}<p class="none">No findings.</p>{{end}}
{{range .Findings}}{{template "finding" .}}{{end}}
{{if .Apart}}<details class="apart" id="apart"><summary><b>{{len .Apart}} set apart</b>: data {{if eq (len .Apart) 1}}race{{else}}races{{end}} whose forced runs, each time the order held, ran the two accesses on different memory (an address reused by a new object), so the recording paired two objects: no evidence of a race</summary>
{{range .Apart}}{{template "finding" .}}{{end}}
</details>{{end}}
</main>
</body>
</html>
{{define "finding"}}{{$f := .}}
<section class="finding" id="{{.Anchor}}" data-status="{{.Status}}" data-kind="{{.Kind}}">
<h2>{{.N}}. <span class="badge {{.Status}}">{{.Status}}</span> <span class="kind">{{.Kind}}</span>: <span class="msg">{{.Message}}</span></h2>
<div class="facts">{{.Pos}} · id <code>{{.ID}}</code>{{if .KindSummary}} · {{.KindSummary}}{{end}}</div>
{{if .FailMessage}}<pre class="message">{{.FailMessage}}</pre>{{end}}
{{if .Tests}}<div class="facts">tests: {{range $i, $t := .Tests}}{{if $i}}, {{end}}<code>{{$t}}</code>{{end}}</div>{{end}}
<h3>Status</h3>
<div class="reason"><span class="badge {{.Status}}">{{.Status}}</span>{{if .Effect}} ({{.Effect}}){{end}}{{if .Runs}} · {{.Runs}}{{end}}{{if .Reason}}: {{.Reason}}{{end}}</div>
<h3>Reproduce</h3>
{{if .Repro}}<pre class="repro">{{.Repro}}</pre>{{else}}<div class="none">No reproducer: only a confirmed finding has one.</div>{{end}}
{{with .Timeline}}{{$src := .Style}}<h3>Interleaving</h3>
<div class="timeline-box"><svg class="timeline" data-source="{{.Source}}" xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Caption}}">
<defs><marker id="arrow{{$f.N}}" class="{{.Style}}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"/></marker></defs>
<text x="12" y="18" class="dim">goroutine</text><text x="{{.AxisX}}" y="18" class="dim">order of events →</text>
{{range .Lanes}}<g class="lane"><line class="lane" x1="{{.LineX1}}" y1="{{.Y}}" x2="{{.LineX2}}" y2="{{.Y}}"/><text class="lane" x="12" y="{{.Y}}">{{.Label}}</text>{{if .Sub}}<text class="dim" x="12" y="{{.SubY}}">{{.Sub}}</text>{{end}}</g>
{{end}}{{range .Bars}}<rect class="together" x="{{.X1}}" y="{{.Y1}}" width="36" height="{{.H}}" rx="8"/><text class="{{$src}}" x="{{.TextX}}" y="{{.TextY}}">{{.Text}}</text>
{{end}}{{range .Arrows}}<path class="arrow {{$src}}" d="{{.D}}" marker-end="url(#arrow{{$f.N}})"/><text class="{{$src}}" x="{{.LabelX}}" y="{{.LabelY}}">{{.Label}}</text>
{{end}}{{range .Events}}<g class="event"><title>{{.TitleText}}</title><circle class="{{if .FromSite}}site{{else}}helper{{end}}" cx="{{.X}}" cy="{{.Y}}" r="8"/><text class="role" x="{{.X}}" y="{{.LabelY}}" text-anchor="middle">{{.Role}}</text>{{if .Where}}<text class="code" x="{{.X}}" y="{{.WhereY}}" text-anchor="middle">{{.Where}}</text>{{end}}{{if .Expr}}<text class="code dim" x="{{.X}}" y="{{.ExprY}}" text-anchor="middle">{{.Expr}}</text>{{end}}{{if .Rec}}<text class="dim" x="{{.X}}" y="{{.RecY}}" text-anchor="middle">{{.Rec}}</text>{{end}}</g>
{{end}}</svg></div>
<p class="caption"><span class="src">{{.Source}}</span>: {{.Caption}}{{if .Recorded}}; {{.Recorded}}{{end}}. Left to right is the order of the events, not their time.{{if .Note}} <i>{{.Note}}</i>.{{end}}</p>
{{end}}
<h3>Goroutines</h3>
<div class="sides">{{range .Sides}}<div class="side"><h4>{{.Title}}</h4>
{{if .Spawn}}<div class="spawn">{{.Spawn}}</div>{{end}}
<ol class="stack">{{range .Frames}}<li class="mono">{{.}}</li>{{end}}<li class="mono site">{{.Site}}</li></ol>
{{if .NoStack}}<div class="extra">{{.NoStack}}</div>{{end}}
{{range .Extra}}<div class="extra">{{.}}</div>{{end}}
{{with .Source}}{{if .Lines}}<pre class="src">{{range .Lines}}<span class="line{{if .Hit}} hit{{end}}"><span class="ln">{{.N}}</span>{{.Text}}</span>{{if .Caret}}<span class="line"><span class="ln"></span><span class="caret">{{.Caret}}</span></span>{{end}}{{end}}</pre>{{end}}{{if .Problem}}<div class="problem">{{.Problem}}</div>{{end}}{{end}}
</div>{{end}}</div>
{{if or .Notes .Related}}<h3>Evidence</h3><ul class="notes">{{range .Related}}<li class="mono">{{.}}</li>{{end}}{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
</section>
{{end}}`))
