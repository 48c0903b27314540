package covercmd

import (
	"bytes"
	"cmp"
	"fmt"
	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/precog-dev/precog/detect/cfp"
)

// MaxMatrix is the most functions a package's matrix shows: those in the
// most pairs. A matrix of more is unreadable, and its page heavy.
const MaxMatrix = 120

// A page is the data of the HTML template.
type page struct {
	Packages []htmlPkg
}

type htmlPkg struct {
	*pkgView
	Index   int
	Matrix  []*funcView
	Rows    []htmlRow
	Omitted int // functions left out of the matrix
	Files   []htmlFile
}

type htmlRow struct {
	Func  *funcView
	Cells []htmlCell
}

type htmlCell struct {
	Tests string // the tests covering the pair, "" if none
	Title string
}

type htmlFile struct {
	Name  string
	Lines []htmlLine
}

type htmlLine struct {
	N     int
	Text  string
	Class string // "cov", "uncov" or ""
	Title string
}

// writeHTML writes the coverage page; read reads source files.
func writeHTML(w io.Writer, v *view, read func(string) ([]byte, error)) error {
	var pg page
	for i, p := range v.Packages {
		hp := htmlPkg{pkgView: p, Index: i}
		hp.Matrix = slices.Clone(p.Funcs)
		if len(hp.Matrix) > MaxMatrix {
			slices.SortStableFunc(hp.Matrix, func(a, b *funcView) int { return cmp.Compare(b.Pairs, a.Pairs) })
			hp.Omitted = len(hp.Matrix) - MaxMatrix
			hp.Matrix = hp.Matrix[:MaxMatrix]
			slices.SortFunc(hp.Matrix, func(a, b *funcView) int { return strings.Compare(a.Short, b.Short) })
		}
		for _, f := range hp.Matrix {
			row := htmlRow{Func: f}
			for _, g := range hp.Matrix {
				tests := p.pairTests[cfp.MakePair(f.Key, g.Key)]
				c := htmlCell{}
				if len(tests) > 0 {
					c.Tests = strings.Join(tests, ", ")
					c.Title = fmt.Sprintf("%s ∥ %s: %s", f.Short, g.Short, c.Tests)
				}
				row.Cells = append(row.Cells, c)
			}
			hp.Rows = append(hp.Rows, row)
		}
		files, err := sourceFiles(p, read)
		if err != nil {
			return err
		}
		hp.Files = files
		pg.Packages = append(pg.Packages, hp)
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, pg); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// sourceFiles returns the files of the package's covered and uncovered
// functions, each line marked with the innermost function around it.
func sourceFiles(p *pkgView, read func(string) ([]byte, error)) ([]htmlFile, error) {
	byFile := make(map[string][]*funcView)
	for _, f := range append(slices.Clone(p.Funcs), p.Uncovered...) {
		if f.Line > 0 && f.End >= f.Line {
			byFile[f.File] = append(byFile[f.File], f)
		}
	}
	var names []string
	for name := range byFile {
		names = append(names, name)
	}
	slices.Sort(names)
	var out []htmlFile
	for _, name := range names {
		src, err := read(name)
		if err != nil {
			return nil, fmt.Errorf("reading the source of the coverage page: %w", err)
		}
		lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
		hf := htmlFile{Name: filepath.Base(name)}
		for i, l := range lines {
			hf.Lines = append(hf.Lines, htmlLine{N: i + 1, Text: strings.ReplaceAll(l, "\t", "    ")})
		}
		// Outer functions first, so a closure's marks win inside it.
		fs := byFile[name]
		slices.SortFunc(fs, func(a, b *funcView) int { return cmp.Compare(b.End-b.Line, a.End-a.Line) })
		for _, f := range fs {
			class, title := "cov", fmt.Sprintf("%s: %d %s, by %s", f.Short, f.Pairs, cli.Plural(f.Pairs, "pair", "pairs"), strings.Join(f.Tests, ", "))
			if f.Pairs == 0 {
				class, title = "uncov", f.Short+": runs on a goroutine, but no test runs it concurrently with anything"
			}
			for n := f.Line; n <= f.End && n <= len(hf.Lines); n++ {
				hf.Lines[n-1].Class, hf.Lines[n-1].Title = class, title
			}
		}
		out = append(out, hf)
	}
	return out, nil
}

var pageTemplate = template.Must(template.New("cover").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>precog cover</title>
<style>
body { margin: 0; font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328; background: #fff; }
#topbar { position: sticky; top: 0; z-index: 3; background: #000; color: #ddd; padding: 8px 16px; display: flex; gap: 24px; align-items: center; font-size: 14px; }
#topbar select { font-size: 14px; }
.legend span { padding: 1px 8px; border-radius: 3px; margin-right: 6px; }
.legend .cov { background: #2da44e; color: #fff; }
.legend .uncov { background: #cf222e; color: #fff; }
.legend .none { background: #888; color: #fff; }
section.pkg { padding: 8px 16px 32px; }
h2 { font-size: 20px; margin: 12px 0 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
p.summary { margin: 0 0 8px; color: #57606a; }
.cols { display: flex; gap: 32px; align-items: flex-start; flex-wrap: wrap; }
table.matrix { border-collapse: collapse; font-size: 12px; }
table.matrix th.col { height: 120px; white-space: nowrap; vertical-align: bottom; padding: 0; }
table.matrix th.col div { transform: translate(8px, 0) rotate(-55deg); width: 18px; transform-origin: bottom left; }
table.matrix th.row { text-align: right; padding-right: 6px; font-weight: normal; white-space: nowrap; font-family: ui-monospace, Menlo, monospace; }
table.matrix th.col div { font-family: ui-monospace, Menlo, monospace; font-weight: normal; }
table.matrix td { width: 18px; height: 18px; border: 1px solid #fff; background: #eaeef2; position: relative; padding: 0; }
table.matrix td.pair { background: #2da44e; cursor: default; }
table.matrix td.pair:hover { outline: 2px solid #1f2328; }
table.matrix td.pair:hover::after { content: attr(data-tip); position: absolute; left: 22px; top: -4px; z-index: 2; background: #1f2328; color: #fff; padding: 4px 8px; border-radius: 4px; white-space: nowrap; font-size: 12px; }
table.tests { border-collapse: collapse; font-size: 13px; }
table.tests th, table.tests td { padding: 3px 10px; border-bottom: 1px solid #d0d7de; text-align: left; }
table.tests td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.tests tr.selected td.name { font-weight: 600; }
table.tests tr.skipped { color: #8c959f; }
ul.uncovered { margin: 0; padding-left: 18px; font-family: ui-monospace, Menlo, monospace; font-size: 13px; color: #cf222e; }
pre.file { font-family: ui-monospace, Menlo, monospace; font-size: 13px; line-height: 1.45; margin: 0; background: #fff; color: #8c959f; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 0; overflow-x: auto; }
pre.file span.line { display: block; padding: 0 12px; }
pre.file span.ln { display: inline-block; width: 4em; color: #8c959f; user-select: none; }
pre.file span.cov { background: #dafbe1; color: #116329; }
pre.file span.uncov { background: #ffebe9; color: #a40e26; }
.hidden { display: none; }
</style>
</head>
<body>
<div id="topbar">
<select id="pkgs" aria-label="package">
{{range .Packages}}<option value="pkg{{.Index}}">{{.ImportPath}} ({{.Pairs}} pairs)</option>
{{end}}</select>
<div class="legend"><span class="cov">run concurrently</span><span class="uncov">goroutine code never run concurrently</span><span class="none">not tracked</span></div>
</div>
{{range .Packages}}
<section class="pkg{{if .Index}} hidden{{end}}" id="pkg{{.Index}}">
<h2>{{.ImportPath}}</h2>
<p class="summary">{{.Pairs}} concurrent function pairs among {{len .Funcs}} functions; {{.Selected}} of {{len .Tests}} tests and {{.SelFuncs}} functions selected to cover them</p>
<div class="cols">
<div>
<h3>Pairs</h3>
{{if .Rows}}<table class="matrix">
<tr><th></th>{{range .Matrix}}<th class="col"><div>{{.Short}}</div></th>{{end}}</tr>
{{range .Rows}}<tr><th class="row" title="{{.Func.Name}}">{{.Func.Short}}</th>{{range .Cells}}{{if .Tests}}<td class="pair" title="{{.Title}}" data-tip="{{.Title}}" data-tests="{{.Tests}}"></td>{{else}}<td></td>{{end}}{{end}}</tr>
{{end}}</table>{{if .Omitted}}<p class="summary">{{.Omitted}} functions with fewer pairs are not shown.</p>{{end}}{{else}}<p class="summary">No test runs two functions concurrently.</p>{{end}}
</div>
<div>
<h3>Tests</h3>
<table class="tests">
<tr><th>#</th><th>test</th><th>pairs</th><th>new</th><th>selected functions</th></tr>
{{range .Tests}}<tr class="{{if .Selected}}selected{{else}}skipped{{end}}"><td class="num">{{if .Selected}}{{.Order}}{{end}}</td><td class="name">{{.Name}}</td><td class="num">{{.Pairs}}</td><td class="num">{{.New}}</td><td>{{range $i, $f := .Funcs}}{{if $i}}, {{end}}{{$f}}{{end}}</td></tr>
{{end}}</table>
{{if .Uncovered}}<h3>Never run concurrently</h3>
<ul class="uncovered">{{range .Uncovered}}<li title="{{.File}}:{{.Line}}">{{.Short}}</li>{{end}}</ul>{{end}}
</div>
</div>
{{if .Files}}<h3>Source <select class="files" aria-label="file">{{$p := .Index}}{{range $i, $f := .Files}}<option value="file{{$p}}-{{$i}}">{{$f.Name}}</option>{{end}}</select></h3>
{{$p := .Index}}{{range $i, $f := .Files}}<pre class="file{{if $i}} hidden{{end}}" id="file{{$p}}-{{$i}}">{{range .Lines}}<span class="line {{.Class}}"{{if .Title}} title="{{.Title}}"{{end}}><span class="ln">{{.N}}</span>{{.Text}}</span>{{end}}</pre>
{{end}}{{end}}
</section>
{{end}}
<script>
function show(sel) {
	sel.addEventListener('change', function () {
		for (const o of sel.options) {
			document.getElementById(o.value).classList.toggle('hidden', o.value !== sel.value);
		}
	});
}
show(document.getElementById('pkgs'));
for (const s of document.querySelectorAll('select.files')) show(s);
</script>
</body>
</html>
`))
