package failure

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Ginkgo suites. A Ginkgo (v1 or v2) suite is one top-level test whose
// specs run inside RunSpecs: a failed spec is reported by Ginkgo's own
// reporter on the test's output, and RunSpecs then fails the test with
// t.Fail, so go test's output has no t.Error line for it. What failed is
// in the report's summary, printed last ("Summarizing N Failures:"),
// each failed spec a line of its state and text ("[FAIL] Cache when
// empty [It] evicts"; v1: "[Fail] ...", a panic "[PANICKED!]" or
// "[Panic!]") and a line of its location (the failed assertion's file
// and line; for a panic the runtime's frame that raised it). v2 also
// prints each failed spec's block before the summary, its text on a line
// of its own followed by the failure's ("[FAILED] Expected ...", up to
// "In [It] at: ..."; a panic's value after that line), which gives the
// message; v1's block nests the spec's containers over several lines and
// is not read (the message is then the spec's text alone). A panic's
// "Full Stack Trace" gives the spec's own frame that panicked.

// A spec is a failed Ginkgo spec.
type spec struct {
	state string // "FAIL", "PANICKED!", "TIMEDOUT", "Fail", "Panic!", ...
	text  string // the spec's containers and its own text
	file  string // the failure's location, an absolute path
	line  int
}

// panicked reports whether the spec failed by a panic.
func (s spec) panicked() bool {
	return strings.HasPrefix(strings.ToUpper(s.state), "PANIC")
}

// ginkgoSpecs returns the failed specs of the last Ginkgo summary in out
// (escape sequences stripped), in its order; nil if out has none.
func ginkgoSpecs(out string) []spec {
	lines := strings.Split(out, "\n")
	start := -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "Summarizing ") && (strings.HasSuffix(t, " Failure:") || strings.HasSuffix(t, " Failures:")) {
			start = i + 1
		}
	}
	if start < 0 {
		return nil
	}
	var specs []spec
	for i := start; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if t == "" {
			continue
		}
		state, text, ok := stateLine(t)
		if !ok {
			break // "Ran 3 of 3 Specs ...": the summary's end
		}
		s := spec{state: state, text: text}
		if i+1 < len(lines) {
			if file, n := fileLine(strings.TrimSpace(lines[i+1])); n > 0 && filepath.IsAbs(file) {
				s.file, s.line = file, n
				i++
			}
		}
		specs = append(specs, s)
	}
	return specs
}

// stateLine parses a summary's line of a failed spec: "[FAIL] text".
func stateLine(t string) (state, text string, ok bool) {
	rest, ok := strings.CutPrefix(t, "[")
	if !ok {
		return "", "", false
	}
	state, text, ok = strings.Cut(rest, "] ")
	if !ok || state == "" || strings.ContainsAny(state, " []") {
		return "", "", false
	}
	return state, strings.TrimSpace(text), true
}

// ginkgoReport returns the line that reported the first failed spec of a
// Ginkgo suite's output: its location (for a panic, the first frame of
// its stack in dir, the test package's directory, if there is one) and a
// message that names the spec and says how it failed, and how many
// others did. ok is false when out has no Ginkgo summary.
func ginkgoReport(out, dir string) (Log, bool) {
	specs := ginkgoSpecs(out)
	if len(specs) == 0 {
		return Log{}, false
	}
	s := specs[0]
	if s.panicked() {
		if file, n := stackFrameIn(out, dir); n > 0 {
			s.file, s.line = file, n
		}
	}
	verb := "failed"
	switch {
	case s.panicked():
		verb = "panicked"
	case strings.EqualFold(s.state, "TIMEDOUT"):
		verb = "timed out"
	}
	msg := fmt.Sprintf("spec %q %s", s.text, verb)
	if detail := specDetail(out, s); detail != "" {
		msg += ": " + detail
	}
	if n := len(specs) - 1; n == 1 {
		msg += " (and 1 more spec)"
	} else if n > 1 {
		msg += fmt.Sprintf(" (and %d more specs)", n)
	}
	l := Log{Text: msg}
	if s.file != "" {
		l.File, l.Line = filepath.Base(s.file), s.line
		if dir == "" || filepath.Dir(s.file) != filepath.Clean(dir) {
			// Where logPath finds it: the base name alone names a
			// file of the test package's directory.
			l.Text += fmt.Sprintf(" at %s:%d", s.file, s.line)
		}
	}
	return l, true
}

// specDetail returns how spec s failed, from its block before the summary
// (v2): the lines from its state's tag ("[FAILED] Expected") to "In [It]
// at:", and for a panic the panic's value after that line, joined by
// spaces. "" if the block is not found.
func specDetail(out string, s spec) string {
	lines := strings.Split(out, "\n")
	at := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == s.text {
			at = i
			break
		}
	}
	if at < 0 {
		return ""
	}
	var words []string
	tagged, after := false, false
	for _, l := range lines[at+1:] {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "-----"), t == "Full Stack Trace":
			return strings.Join(words, " ")
		case !tagged:
			if state, text, ok := stateLine(t + " "); ok && state == strings.ToUpper(state) {
				tagged = true
				if !s.panicked() {
					words = append(words, strings.TrimSpace(text))
				}
			}
		case strings.HasPrefix(t, "In [") && strings.Contains(t, "] at: "):
			if !s.panicked() {
				return strings.Join(words, " ")
			}
			after = true
		case t != "" && (!s.panicked() || after):
			words = append(words, t)
		}
	}
	return strings.Join(words, " ")
}

// stackFrameIn returns the first frame in dir of the first "Full Stack
// Trace" in out: the spec's own line that panicked.
func stackFrameIn(out, dir string) (string, int) {
	_, trace, ok := strings.Cut(out, "Full Stack Trace\n")
	if !ok || dir == "" {
		return "", 0
	}
	for line := range strings.Lines(trace) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "-----") {
			break
		}
		if file, n := fileLine(t); n > 0 && filepath.Dir(file) == filepath.Clean(dir) {
			return file, n
		}
	}
	return "", 0
}
