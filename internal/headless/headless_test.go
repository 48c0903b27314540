package headless

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// outcome records how run ended when called with a recordingTB.
type outcome struct {
	out     string
	skipped string
	failed  string
}

// recordingTB stands in for the test given to run, so that a skip or a
// failure of run can be checked instead of ending this test.
type recordingTB struct {
	testing.TB
	res *outcome
}

func (r recordingTB) Helper() {}
func (r recordingTB) Skipf(format string, args ...any) {
	r.res.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r recordingTB) Fatalf(format string, args ...any) {
	r.res.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r recordingTB) Fatal(args ...any) {
	r.res.failed = fmt.Sprint(args...)
	runtime.Goexit()
}

// runFake runs run with a fake browser, a shell script whose body is
// script; the script can count its runs in the file $RUNS.
func runFake(t *testing.T, script string) (outcome, int) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	bin := filepath.Join(dir, "browser")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nRUNS="+runs+"\necho x >> $RUNS\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "page.html")
	if err := os.WriteFile(page, []byte("<p>page</p>"), 0o666); err != nil {
		t.Fatal(err)
	}
	var res outcome
	done := make(chan struct{})
	go func() {
		defer close(done)
		res.out = string(run(recordingTB{t, &res}, bin, page, "--dump-dom"))
	}()
	<-done
	data, _ := os.ReadFile(runs)
	return res, strings.Count(string(data), "x")
}

// TestCrashes checks what run makes of a browser that crashes: retried
// once, skipped when an empty page crashes too, failed when only the
// page does, and never retried or skipped on an ordinary error.
func TestCrashes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake browser is a shell script")
	}
	lastArg := `for a; do last=$a; done
`
	for _, c := range []struct {
		name, script string
		runs         int
		want         func(outcome) bool
	}{
		{"works", `echo '<p>page</p>'`, 1,
			func(o outcome) bool { return o.out == "<p>page</p>\n" && o.failed == "" && o.skipped == "" }},
		{"crashes once", `[ "$(wc -l < $RUNS)" -gt 1 ] && { echo ok; exit 0; }; kill -SEGV $$`, 2,
			func(o outcome) bool { return o.out == "ok\n" && o.failed == "" && o.skipped == "" }},
		{"crashes always", `kill -SEGV $$`, 3,
			func(o outcome) bool {
				return strings.Contains(o.skipped, "crashes even on an empty page") && o.failed == ""
			}},
		{"crashes on the page only", lastArg + `case $last in *page.html) kill -SEGV $$;; esac; echo empty`, 3,
			func(o outcome) bool { return strings.Contains(o.failed, "signal") && o.skipped == "" }},
		{"fails", `echo bad flag >&2; exit 1`, 1,
			func(o outcome) bool { return strings.Contains(o.failed, "bad flag") && o.skipped == "" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, runs := runFake(t, c.script)
			if runs != c.runs || !c.want(res) {
				t.Errorf("%d runs, outcome %+v; want %d runs", runs, res, c.runs)
			}
		})
	}
}
