package testcmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/precog-dev/precog/detect/finding"
)

// TestExplainHints: a test that failed by itself gets one precog explain
// hint, which says first what its output shows of the environment if it
// shows something, or that it needs another test's setup, or that it
// failed only when recorded, and the output one line on running each test
// alone;
// predicted findings get none.
func TestExplainHints(t *testing.T) {
	fs := []finding.Finding{
		{Kind: finding.Crash, Tests: []string{"precog.example/kernels/crashpanic.TestIndex"}},
		{Kind: finding.TestFailed, Tests: []string{"precog.example/kernels/crashpanic.TestIndex", "example.com/p.TestB"}},
		{Kind: finding.Race, Tests: []string{"example.com/p.TestC"}},
		{Kind: finding.TestFailed, Tests: []string{"example.com/p.TestD"}, Validation: &finding.Validation{Environment: "a refused connection: dial tcp 10.1.2.3:4150: connect: connection refused"}},
		// TestE failed alone but passed with its package's tests; TestF
		// had the same failure, but its run together was not read.
		{Kind: finding.TestFailed, Tests: []string{"example.com/p.TestE", "example.com/p.TestF"}, Validation: &finding.Validation{Alone: true}},
		// TestG failed only when recorded.
		{Kind: finding.TestFailed, Tests: []string{"example.com/p.TestG"}, Status: finding.NotConfirmed},
	}
	var b bytes.Buffer
	explainHints(&b, options{dir: "testdata/kernels"}, fs)
	want := "hint: TestIndex failed by itself; its root cause: precog explain -C testdata/kernels -run TestIndex precog.example/kernels/crashpanic\n" +
		"hint: TestB failed by itself; its root cause: precog explain -C testdata/kernels -run TestB example.com/p\n" +
		"hint: TestD failed by itself; its output shows a refused connection (dial tcp 10.1.2.3:4150: connect: connection refused): it may need a server, the network, a program, a file or a setting that this machine lacks, its environment rather than a bug (precog test takes go test's -short, -run and -skip, which leave such tests out); if not, its root cause: precog explain -C testdata/kernels -run TestD example.com/p\n" +
		"hint: TestE fails alone but passes with its package's other tests, as go test runs them: it needs what another test sets up (go test -run '^TestE$' example.com/p fails the same way)\n" +
		"hint: TestG failed only when recorded and passed without recording: recording alone may have made it fail (timing, allocations); if not, what failed it in the recorded run: precog explain -C testdata/kernels -run TestG example.com/p\n" +
		"hint: each test ran in a process of its own; one that needs what another test set up fails there, as under go test -run with its name alone\n"
	if b.String() != want {
		t.Errorf("hints:\n%s\nwant:\n%s", b.String(), want)
	}
	// Three tests of a package with one environment shown share a line;
	// two with none do not (each has its line), nor do tests of another
	// package or with another environment.
	db := &finding.Validation{Environment: "an unset environment variable: TEST_POSTGRES env var is not set"}
	fs2 := []finding.Finding{
		{Kind: finding.TestFailed, Tests: []string{"example.com/q.TestA", "example.com/q.TestB"}, Validation: db},
		{Kind: finding.TestFailed, Tests: []string{"example.com/q.TestC"}, Validation: &finding.Validation{}},
		{Kind: finding.TestFailed, Tests: []string{"example.com/q.TestD", "example.com/r.TestE"}, Validation: db},
		{Kind: finding.Crash, Tests: []string{"example.com/q.TestF"}},
		{Kind: finding.TestFailed, Tests: []string{"example.com/q.TestG", "example.com/q.TestH", "example.com/q.TestI"}, Status: finding.NotConfirmed},
		{Kind: finding.TestFailed, Tests: []string{"example.com/s.TestJ", "example.com/s.TestK", "example.com/s.TestL"}, Validation: &finding.Validation{}},
	}
	b.Reset()
	explainHints(&b, options{}, fs2)
	want = "hint: 3 tests of example.com/q (TestA, TestB and 1 more) failed by themselves; their output shows an unset environment variable (TEST_POSTGRES env var is not set): they may need a server, the network, a program, a file or a setting that this machine lacks, their environment rather than a bug (precog test takes go test's -short, -run and -skip, which leave such tests out); if not, the root cause of one: precog explain -run TestA example.com/q\n" +
		"hint: TestC failed by itself; its root cause: precog explain -run TestC example.com/q\n" +
		"hint: TestF failed by itself; its root cause: precog explain -run TestF example.com/q\n" +
		"hint: TestE failed by itself; its output shows an unset environment variable (TEST_POSTGRES env var is not set): it may need a server, the network, a program, a file or a setting that this machine lacks, its environment rather than a bug (precog test takes go test's -short, -run and -skip, which leave such tests out); if not, its root cause: precog explain -run TestE example.com/r\n" +
		"hint: 3 tests of example.com/q (TestG, TestH and 1 more) failed only when recorded and passed without recording: recording alone may have made them fail (timing, allocations); if not, what failed one in the recorded run: precog explain -run TestG example.com/q\n" +
		"hint: 3 tests of example.com/s (TestJ, TestK and 1 more) failed by themselves; the root cause of one: precog explain -run TestJ example.com/s\n" +
		"hint: each test ran in a process of its own; one that needs what another test set up fails there, as under go test -run with its name alone\n"
	if b.String() != want {
		t.Errorf("hints of tests that share one:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	explainHints(&b, options{}, fs[2:3])
	if b.Len() > 0 {
		t.Errorf("hints for a race alone:\n%s", b.String())
	}
}

// TestDepsHint: findings with a goroutine that uninstrumented code started
// get a line at the end per kind of starter: dependencies, named once each,
// sorted, with the -instrument-deps pattern that records them; the
// standard library's go statements reached from a dependency's call, with
// the pattern that records the call; the standard library's alone (a call
// from the instrumented code), for which no flag helps; and a goroutine
// whose creator the shim did not name. Findings with goroutines all seen
// get none.
func TestDepsHint(t *testing.T) {
	dep := finding.UnseenSpawn([]string{"github.com/stripe/goproxy.(*ProxyHttpServer).ServeHTTP.func2"})
	dep2 := finding.UnseenSpawn([]string{"example.com/dep.Handle"})
	viaDep := finding.UnseenSpawn([]string{"net/http.(*Server).Serve", "github.com/stripe/goproxy.(*Proxy).Listen", "example.com/m.TestProxy"})
	fromTest := finding.UnseenSpawn([]string{"net/http.(*Server).Serve", "net/http/httptest.(*Server).goServe.func1", "example.com/m.TestServe"})
	fromXTest := finding.UnseenSpawn([]string{"net/http.(*Server).Serve", "net/http/httptest.(*Server).goServe.func1", "example.com/m_test.newTestServer"})
	seen := finding.Site{File: "/m/a.go", Line: 3, Role: finding.RoleGo}
	instrumented := []string{"example.com/m"}
	fs := []finding.Finding{
		{ID: "a0", Kind: finding.Race, Spawns: []finding.Site{dep, {}}},
		{ID: "a1", Kind: finding.Race, Spawns: []finding.Site{seen, {}}},
		{ID: "a2", Kind: finding.ConNull, Spawns: []finding.Site{dep2, dep}},
		{ID: "a3", Kind: finding.Race, Spawns: []finding.Site{viaDep, fromTest}},
		{ID: "a4", Kind: finding.Race, Spawns: []finding.Site{fromTest, {}}},
		{ID: "a5", Kind: finding.Race, Spawns: []finding.Site{finding.UnseenSpawn(nil), {}}},
		{ID: "a6", Kind: finding.Race, Spawns: []finding.Site{fromXTest, {}}},
	}
	var b bytes.Buffer
	depsHint(&b, fs, instrumented, "")
	want := "hint: 2 findings (ids a0 and a2) have goroutines that example.com/dep and github.com/stripe/goproxy started, whose starts and joins are not in the trace (-instrument-deps example.com/dep/...,github.com/stripe/goproxy/... records them)\n" +
		"hint: 1 finding (id a3) has goroutines that net/http started when github.com/stripe/goproxy called into it: no flag records the standard library's go statements, but -instrument-deps github.com/stripe/goproxy/... records those calls, which orders the goroutines after them\n" +
		"hint: 3 findings (ids a3, a4 and a6) have goroutines that net/http started: no flag records the standard library's go statements, so their starts and joins are not in the trace\n" +
		"hint: 1 finding (id a5) has goroutines that code precog did not instrument started (a dependency's go statement, or the standard library's): their starts and joins are not in the trace; -instrument-deps PATTERN instruments dependencies too\n"
	if b.String() != want {
		t.Errorf("hint:\n%s\nwant:\n%s", b.String(), want)
	}
	// The negative controls: a goroutine that net/http started for the
	// test's own call, or for its package's external test's (instrumented
	// too), names net/http and no flag.
	for _, f := range []finding.Finding{fs[4], fs[6]} {
		b.Reset()
		depsHint(&b, []finding.Finding{f}, instrumented, "")
		if got := b.String(); strings.Contains(got, "-instrument-deps") || !strings.Contains(got, "net/http started: no flag") {
			t.Errorf("hint for a goroutine the standard library started for the test:\n%s", got)
		}
	}
	b.Reset()
	depsHint(&b, fs[1:2], instrumented, "")
	if b.Len() > 0 {
		t.Errorf("hint for goroutines all seen:\n%s", b.String())
	}
	b.Reset()
	closed := finding.Finding{ID: "c0", Kind: finding.Race, Evidence: finding.Evidence{Notes: []string{finding.UnseenClose + ": before ..."}}}
	depsHint(&b, append(fs[1:2], closed), instrumented, "")
	want = "hint: in 1 finding (id c0), a goroutine received from a channel that no recorded close closed (a dependency's close, or the standard library's), which may order the two sides; -instrument-deps PATTERN instruments dependencies too\n"
	if b.String() != want {
		t.Errorf("hint for a close not recorded:\n%s\nwant:\n%s", b.String(), want)
	}
	// Past maxHintIDs findings the hint counts the rest.
	many := []finding.Finding{fs[4], fs[6], {ID: "b1", Spawns: fs[4].Spawns}, {ID: "b2", Spawns: fs[4].Spawns}, {ID: "b3", Spawns: fs[4].Spawns}}
	b.Reset()
	depsHint(&b, many, instrumented, "")
	if want := "hint: 5 findings (ids a4, a6, b1 and 2 more) have goroutines that net/http started"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("hint for many findings:\n%s\nwant it to begin %s", b.String(), want)
	}
}
