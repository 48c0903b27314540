package results_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/results"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/precogbin"
	"github.com/precog-dev/precog/internal/testcache"
)

// nightly runs precog (a binary of this tree, built without -race: the
// tests run whole suites through it, which under the race detector would
// take most of the package's time limit) in dir.
func nightly(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return precogbin.Run(t, dir, args...)
}

// TestNightlyErrors checks that bad input to the nightly job's flags
// costs one line and exit status 2, before anything is built.
func TestNightlyErrors(t *testing.T) {
	tmp := t.TempDir()
	write(t, filepath.Join(tmp, "bad-baseline"), "# a comment\n\n0123456789ab fine\nnot-an-id at all\n")
	other := filepath.Join(tmp, "other")
	os.Mkdir(other, 0o777)
	write(t, filepath.Join(other, "notes.txt"), "the user's file\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"test", "-shard", "x", "./mysql"}, `-shard: want i/n, such as 1/2, got "x"`},
		{[]string{"test", "-shard", "3/2", "./mysql"}, `-shard: want i/n with 1 <= i <= n <= 1000, got "3/2"`},
		{[]string{"test", "-shard", "0/2", "./mysql"}, `got "0/2"`},
		{[]string{"test", "-shard-times", tmp, "./mysql"}, "-shard-times balances -shard, which is not given"},
		{[]string{"test", "-shard", "1/2", "-shard-times", tmp, "./mysql"}, "-shard-times: open "},
		{[]string{"test", "-baseline", filepath.Join(tmp, "nosuch"), "./mysql"}, "baseline " + filepath.Join(tmp, "nosuch") + " does not exist"},
		{[]string{"test", "-baseline", filepath.Join(tmp, "bad-baseline"), "./mysql"}, `bad-baseline:4: want a finding ID (12 hex digits) at the start of the line, got "not-an-id"`},
		{[]string{"test", "-ci", other, "./mysql"}, "is not empty and holds no summary.json"},
		{[]string{"test", "-ci", filepath.Join(tmp, "d"), "-o", filepath.Join(tmp, "d"), "./mysql"}, "-ci and -o must name different directories"},
		{[]string{"merge", tmp}, "-o is required"},
		{[]string{"merge", "-o", filepath.Join(tmp, "m")}, "no results directories to merge"},
		{[]string{"merge", "-o", filepath.Join(tmp, "m"), other}, "is not a results directory: it has no summary.json"},
	} {
		stdout, stderr, code := nightly(t, kernels, tc.args...)
		if code != cli.ExitUsage || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("precog %s: exit %d, stderr %q; want 2 and one line with %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(other, "notes.txt")); string(data) != "the user's file\n" {
		t.Errorf("a refused -ci directory lost its file")
	}
}

// readDir reads a results directory and checks what the layout promises
// of it: findings that the JSON lines and the SARIF log agree on, a
// summary whose counts are the findings', the tests with their times, and
// a schedule and a command for every confirmed finding that validation
// confirmed.
func readDir(t *testing.T, dir string) *results.Dir {
	t.Helper()
	d, err := results.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, results.SARIFFile))
	if err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, data, len(d.Findings))
	s := d.Summary
	if s.Findings != len(d.Findings) {
		t.Errorf("%s: summary counts %d findings, findings.jsonl has %d", dir, s.Findings, len(d.Findings))
	}
	text, err := os.ReadFile(filepath.Join(dir, results.SummaryText))
	if err != nil || !strings.HasPrefix(lastLines(string(text)), strconv.Itoa(len(d.Findings))+" finding") {
		t.Errorf("%s: summary.txt %q (%v) does not start its totals with the findings", dir, text, err)
	}
	if len(d.Tests) != s.Tests {
		t.Errorf("%s: %d tests in tests.json, summary says %d", dir, len(d.Tests), s.Tests)
	}
	for _, tt := range d.Tests {
		if tt.WallNs <= 0 || tt.Outcome == "" {
			t.Errorf("%s: test %+v has no time or outcome", dir, tt)
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, results.HTMLFile))
	if err != nil {
		t.Errorf("%s: no HTML report: %v", dir, err)
	}
	for _, f := range d.Findings {
		if !bytes.Contains(html, []byte(f.ID)) {
			t.Errorf("%s: the HTML report does not show finding %s", dir, f.ID)
		}
	}
	cmds, _ := os.ReadFile(filepath.Join(dir, results.ReproDir, results.CommandsFile))
	for _, f := range d.Findings {
		if f.Status != finding.Confirmed || strings.HasPrefix(f.Repro, "go test ") {
			continue // not confirmed, or confirmed by a recorded run: no schedule
		}
		if _, err := os.Stat(filepath.Join(dir, results.ReproDir, f.ID+".json")); err != nil {
			t.Errorf("%s: confirmed finding %s has no schedule: %v", dir, f.ID, err)
		}
		if !strings.Contains(string(cmds), f.ID+" "+f.Kind+" ") || !strings.Contains(f.Repro, "precog repro -o ") {
			t.Errorf("%s: confirmed finding %s (repro %q) has no command in %s:\n%s", dir, f.ID, f.Repro, results.CommandsFile, cmds)
		}
	}
	return d
}

// lastLines drops the notes before the totals line of a summary.
func lastLines(s string) string {
	if i := strings.Index(s, " finding"); i >= 0 {
		if j := strings.LastIndex(s[:i], "\n"); j >= 0 {
			return s[j+1:]
		}
	}
	return s
}

// recordedFailure reports whether f is a test's failure in a recorded run
// (a crash or a failed test, which that run confirmed). A kernel whose bug
// hides behind a timing margin fails now and then when recorded on a
// loaded machine (fft's TestEndTime did in .ci/run), and its failure is
// then a finding of that run alone: the tests below that compare one run's
// findings with another's leave such findings out, and say so.
func recordedFailure(f finding.Finding) bool {
	return (f.Kind == finding.Crash || f.Kind == finding.TestFailed) && strings.HasPrefix(f.Repro, "go test ")
}

// notRecordedFailures returns the findings of fs but recorded runs'
// failures, logging those.
func notRecordedFailures(t *testing.T, what string, fs []finding.Finding) []finding.Finding {
	t.Helper()
	var out []finding.Finding
	for _, f := range fs {
		if recordedFailure(f) {
			t.Logf("%s: left out %s, a failure of a recorded run: %s", what, f.ID, f.Message)
			continue
		}
		out = append(out, f)
	}
	return out
}

func ids(fs []finding.Finding, keep func(finding.Finding) bool) []string {
	var out []string
	for _, f := range fs {
		if keep == nil || keep(f) {
			out = append(out, f.ID)
		}
	}
	slices.Sort(out)
	return out
}

// TestBaseline runs the nightly job three times on kernels: the first
// run's baseline accepts MySQL's findings; the second run adds the FFT
// kernel, whose new confirmed findings fail the job while MySQL's are
// listed, marked baselined; the third, with a baseline of the second run,
// passes although its findings are confirmed.
func TestBaseline(t *testing.T) {
	cache, tmp := testcache.Dir(), t.TempDir()
	ci, base1, base2 := filepath.Join(tmp, "ci"), filepath.Join(tmp, "base1"), filepath.Join(tmp, "base2")
	common := []string{"test", "-json", "-cache", cache, "-timeout", "1m", "-ci", ci}

	_, stderr, code := nightly(t, kernels, append(common, "-write-baseline", base1, "./mysql")...)
	if code != cli.ExitFindings {
		t.Fatalf("first run: exit %d, want 3 (no baseline, confirmed findings):\n%s", code, stderr)
	}
	first := readDir(t, ci)
	mysql := ids(first.Findings, nil)
	confirmed := ids(first.Findings, func(f finding.Finding) bool { return f.Status == finding.Confirmed })
	if len(confirmed) == 0 {
		t.Fatalf("first run confirmed nothing in ./mysql:\n%s", stderr)
	}
	if got := slices.Sorted(slices.Values(first.Summary.Failing)); !slices.Equal(got, confirmed) {
		t.Errorf("first run: failing %v, want the confirmed findings %v", got, confirmed)
	}
	b, err := results.ReadBaseline(base1)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(func(yield func(string) bool) {
		for id := range b {
			if !yield(id) {
				return
			}
		}
	}); !slices.Equal(got, mysql) {
		t.Errorf("-write-baseline wrote %v, want the run's findings %v", got, mysql)
	}

	stdout, stderr, code := nightly(t, kernels, append(common, "-baseline", base1, "-write-baseline", base2, "./mysql", "./fft")...)
	second := readDir(t, ci) // the same directory again
	if len(second.Tests) == len(first.Tests) {
		t.Errorf("second run: %d tests, the same as the first's: the results directory was not rewritten", len(second.Tests))
	}
	var newConfirmed []string
	predicted := 0 // new confirmed findings that validation confirmed
	for _, f := range second.Findings {
		inBase := slices.Contains(mysql, f.ID)
		if f.Baselined != inBase {
			t.Errorf("second run: finding %s (%s %s) baselined=%v, want %v", f.ID, f.Kind, f.Sites[0].File, f.Baselined, inBase)
		}
		if !inBase && f.Status == finding.Confirmed {
			newConfirmed = append(newConfirmed, f.ID)
			if recordedFailure(f) {
				t.Logf("second run: a recorded run failed: %s %s", f.ID, f.Message)
				continue
			}
			predicted++
			if !strings.HasSuffix(f.Sites[0].File, "fft.go") {
				t.Errorf("second run: new confirmed finding %s outside fft: %s", f.ID, f.Sites[0].File)
			}
		}
	}
	slices.Sort(newConfirmed)
	failing := slices.Sorted(slices.Values(second.Summary.Failing))
	if predicted == 0 || code != cli.ExitFindings || !slices.Equal(failing, newConfirmed) || second.Summary.Exit != code {
		t.Fatalf("second run: exit %d (summary %d), failing %v; want 3 and the new confirmed findings %v:\n%s", code, second.Summary.Exit, failing, newConfirmed, stderr)
	}
	if got := ids(second.Findings, func(f finding.Finding) bool { return f.Baselined }); !slices.Equal(got, slices.Sorted(slices.Values(second.Summary.Baselined))) {
		t.Errorf("second run: summary lists baselined %v, findings %v", second.Summary.Baselined, got)
	}
	if jsonIDs := ids(decodeFindings(t, stdout), func(f finding.Finding) bool { return f.Baselined }); len(jsonIDs) == 0 {
		t.Errorf("second run: -json marks no finding baselined")
	}
	var log struct {
		Runs []struct {
			Results []struct {
				BaselineState       string            `json:"baselineState"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			}
		}
	}
	data, _ := os.ReadFile(filepath.Join(ci, results.SARIFFile))
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	for _, r := range log.Runs[0].Results {
		want := "new"
		if slices.Contains(mysql, r.PartialFingerprints["precogId/v1"]) {
			want = "unchanged"
		}
		if r.BaselineState != want {
			t.Errorf("SARIF result %s: baselineState %q, want %q", r.PartialFingerprints["precogId/v1"], r.BaselineState, want)
		}
	}

	_, stderr, code = nightly(t, kernels, append(common, "-baseline", base2, "./mysql", "./fft")...)
	third := readDir(t, ci)
	// Every finding is in the baseline but a failure of this run's own
	// recorded runs, which is new and fails the job.
	var fresh []string
	for _, f := range third.Findings {
		if recordedFailure(f) && !f.Baselined {
			t.Logf("third run: a recorded run failed: %s %s", f.ID, f.Message)
			fresh = append(fresh, f.ID)
		}
	}
	slices.Sort(fresh)
	want := cli.ExitOK
	if len(fresh) > 0 {
		want = cli.ExitFindings
	}
	if got := slices.Sorted(slices.Values(third.Summary.Failing)); code != want || !slices.Equal(got, fresh) {
		t.Errorf("third run: exit %d, failing %v; want %d and %v: every other finding is in the baseline:\n%s", code, got, want, fresh, stderr)
	}
	if n := len(ids(third.Findings, func(f finding.Finding) bool { return f.Status == finding.Confirmed && f.Baselined })); n == 0 {
		t.Errorf("third run: no confirmed finding listed as baselined")
	}
}

// TestShardMerge checks the scale-out: two shards balanced by the test
// times of an unsharded run run every test once between them, and their
// merged results have the same finding IDs and tests as the unsharded
// run. The kernels include a package of 15 tests, which CFP guidance
// keeps in one shard, and single-test packages.
func TestShardMerge(t *testing.T) {
	cache, tmp := testcache.Dir(), t.TempDir()
	// Four kernels, not six (fft and apache1 gone): .ci/run's time;
	// examples/ci's TestWorkflow also runs shards and their merge.
	pkgs := []string{"./mysql", "./controls", "./pbzip2queue", "./doneadd"}
	common := []string{"test", "-json", "-cache", cache, "-timeout", "1m"}
	dir := func(name string) string { return filepath.Join(tmp, name) }

	_, stderr, code := nightly(t, kernels, append(append(common, "-ci", dir("all")), pkgs...)...)
	if code != cli.ExitFindings {
		t.Fatalf("unsharded run: exit %d:\n%s", code, stderr)
	}
	all := readDir(t, dir("all"))
	for i := range 2 {
		shard := strconv.Itoa(i+1) + "/2"
		_, stderr, code := nightly(t, kernels, append(append(common, "-shard", shard, "-shard-times", dir("all"), "-ci", dir("s"+strconv.Itoa(i+1))), pkgs...)...)
		if code != cli.ExitOK && code != cli.ExitFindings {
			t.Fatalf("shard %s: exit %d:\n%s", shard, code, stderr)
		}
	}
	s1, s2 := readDir(t, dir("s1")), readDir(t, dir("s2"))
	key := func(ts []results.Test) (out []string) {
		for _, t := range ts {
			out = append(out, t.Key())
		}
		return out
	}
	k1, k2 := key(s1.Tests), key(s2.Tests)
	if len(k1) == 0 || len(k2) == 0 {
		t.Errorf("a shard ran nothing: %v and %v", k1, k2)
	}
	for _, k := range k1 {
		if slices.Contains(k2, k) {
			t.Errorf("test %s ran in both shards", k)
		}
	}
	controls := func(ks []string) int {
		return len(slices.DeleteFunc(slices.Clone(ks), func(k string) bool { return !strings.Contains(k, "/controls.") }))
	}
	if c1, c2 := controls(k1), controls(k2); c1 != 0 && c2 != 0 {
		t.Errorf("CFP guides controls' tests, but the shards split them: %d and %d", c1, c2)
	}

	stdout, stderr, code := nightly(t, kernels, "merge", "-json", "-o", dir("merged"), dir("s1"), dir("s2"))
	if code != cli.ExitOK && code != cli.ExitFindings {
		t.Fatalf("merge: exit %d:\n%s", code, stderr)
	}
	merged := readDir(t, dir("merged"))
	if got, want := key(merged.Tests), key(all.Tests); !slices.Equal(got, want) {
		t.Errorf("merged tests %v, unsharded %v", got, want)
	}
	if got, want := ids(notRecordedFailures(t, "merged", merged.Findings), nil), ids(notRecordedFailures(t, "unsharded", all.Findings), nil); !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("merged finding IDs %v, unsharded %v (failures of recorded runs left out)", got, want)
	}
	if got := ids(decodeFindings(t, stdout), nil); !slices.Equal(got, ids(merged.Findings, nil)) {
		t.Errorf("merge printed %v, wrote %v", got, ids(merged.Findings, nil))
	}
	reports := func(d *results.Dir) int { // but recorded runs' failures
		n := d.Summary.Reports
		for _, f := range d.Findings {
			if recordedFailure(f) {
				n -= f.Reports
			}
		}
		return n
	}
	if s := merged.Summary; s.Tests != all.Summary.Tests || reports(merged) != reports(all) || !slices.Equal(s.Merged, []string{"1/2", "2/2"}) {
		t.Errorf("merged summary: %d tests, %d reports, merged %v; unsharded %d tests, %d reports (failures of recorded runs left out)", s.Tests, reports(merged), s.Merged, all.Summary.Tests, reports(all))
	}
	if want := (merged.Summary.Exit == cli.ExitFindings); (code == cli.ExitFindings) != want {
		t.Errorf("merge exited %d, summary says %d", code, merged.Summary.Exit)
	}

	// The same shard twice would count its tests twice.
	_, stderr, code = nightly(t, kernels, "merge", "-o", dir("twice"), dir("s1"), dir("s1"))
	if code != cli.ExitUsage || !regexp.MustCompile(`are both shard 1/2\n$`).MatchString(stderr) {
		t.Errorf("merging a shard twice: exit %d, %q; want 2 and the shard named", code, stderr)
	}
}

// TestProgressLines checks the plain progress lines a CI log gets when
// stderr is not a terminal: each names tests done of the total, events
// and findings, the counts never go back within the recording, and
// after the recording they are the run's totals.
func TestProgressLines(t *testing.T) {
	_, stderr, code := nightly(t, kernels, "test", "-json", "-cache", testcache.Dir(), "-timeout", "1m", "-progress", "50ms", "./mysql")
	if code != cli.ExitFindings {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	line := regexp.MustCompile(`^progress at \d+[a-z0-9.]*: (\d+)/(\d+) tests, (\d+) events, (\d+) findings?(, \d+/\d+ validated, \d+ confirmed, [0-9hms.]+ left of the validation budget|, [0-9hms.]+ left of (half of )?-record-budget)?; .+$`)
	totals := regexp.MustCompile(`in (\d+) tests? of \d+ packages?; (\d+) events;`).FindStringSubmatch(stderr)
	if totals == nil {
		t.Fatalf("no totals in:\n%s", stderr)
	}
	n, last, final := 0, 0, false
	for l := range strings.Lines(stderr) {
		if !strings.HasPrefix(l, "progress") {
			continue
		}
		m := line.FindStringSubmatch(strings.TrimSuffix(l, "\n"))
		if m == nil {
			t.Errorf("progress line %q does not parse", l)
			continue
		}
		n++
		done, _ := strconv.Atoi(m[1])
		if done < last || m[2] != "0" && done > atoi(m[2]) {
			t.Errorf("progress line %q: done went from %d to %d, or past the total", l, last, done)
		}
		last = done
		if atoi(m[3]) > atoi(totals[2]) {
			t.Errorf("progress line %q: more events than the run's %s", l, totals[2])
		}
		// A line during the recording names the run's test count. One
		// with every count final comes only if a tick falls after the
		// recording, which detection and validation of one small test
		// can finish in under the 50 ms period.
		final = final || m[2] == totals[1]
	}
	if n < 2 || !final {
		t.Errorf("%d progress lines, none with the run's test count (%s tests, %s events):\n%s", n, totals[1], totals[2], stderr)
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestIDsSurviveUnrelatedEdits checks that findings keep their IDs when
// the code around them changes (here, lines added at the top of every
// file, which moves every function): a baseline of accepted IDs must not
// go stale from unrelated edits. Runtime findings (from the site table,
// and a crash's site read from its stack) and static ones alike.
func TestIDsSurviveUnrelatedEdits(t *testing.T) {
	mod := t.TempDir()
	pkgs := []string{"mysql", "crashpanic"}
	copyFile := func(from, to string, edit bool) {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if edit && strings.HasSuffix(from, ".go") {
			pkg, rest, _ := strings.Cut(string(data), "\n")
			data = []byte(pkg + "\n\n// An unrelated comment,\n// two lines long.\n" + rest)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o777); err != nil {
			t.Fatal(err)
		}
		write(t, to, string(data))
	}
	place := func(edit bool) {
		copyFile(filepath.Join(kernels, "go.mod"), filepath.Join(mod, "go.mod"), false)
		for _, p := range pkgs {
			entries, err := os.ReadDir(filepath.Join(kernels, p))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				copyFile(filepath.Join(kernels, p, e.Name()), filepath.Join(mod, p, e.Name()), edit)
			}
		}
	}
	// The shared cache: the module's files are new, but the shim's
	// build is not (a fresh cache costs about 11 s of CPU for it).
	cache := testcache.Dir()
	// findings returns the runtime and static findings' IDs and their
	// first sites' lines.
	findings := func() (ids []string, lines []int) {
		stdout, stderr, code := nightly(t, mod, "test", "-json", "-validate=false", "-fail-on=predicted", "-cache", cache, "-timeout", "1m", "./mysql", "./crashpanic")
		if code != cli.ExitFindings {
			t.Fatalf("precog test exited %d:\n%s", code, stderr)
		}
		vetOut, vetErr, code := nightly(t, mod, "vet", "-json", "-cache", cache, "./mysql")
		if code != 3 {
			t.Fatalf("precog vet exited %d:\n%s", code, vetErr)
		}
		for _, f := range append(decodeFindings(t, stdout), decodeFindings(t, vetOut)...) {
			ids = append(ids, f.Kind+" "+f.ID)
			lines = append(lines, f.Sites[0].Line)
		}
		slices.Sort(ids)
		slices.Sort(lines)
		return ids, lines
	}
	place(false)
	before, linesBefore := findings()
	place(true)
	after, linesAfter := findings()
	if !slices.Equal(before, after) {
		t.Errorf("IDs changed with an edit outside the findings' functions:\nbefore %v\nafter  %v", before, after)
	}
	if len(linesBefore) == 0 || linesAfter[0] != linesBefore[0]+3 {
		t.Errorf("first lines %v, then %v: want the edit to move every finding 3 lines down", linesBefore, linesAfter)
	}
	for _, kind := range []string{"crash ", "con-null "} {
		if !slices.ContainsFunc(before, func(id string) bool { return strings.HasPrefix(id, kind) }) {
			t.Errorf("no %sfinding among %v", kind, before)
		}
	}
}
