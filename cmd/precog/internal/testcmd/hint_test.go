package testcmd

import (
	"bytes"
	"testing"

	"github.com/precog-dev/precog/detect/finding"
)

// TestExplainHints: a test that failed by itself gets one precog explain
// hint, which says first what its output shows of the environment if it
// shows something, or that it needs another test's setup, and the output
// one line on running each test alone;
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
	}
	var b bytes.Buffer
	explainHints(&b, options{dir: "testdata/kernels"}, fs)
	want := "hint: TestIndex failed by itself; its root cause: precog explain -C testdata/kernels -run TestIndex precog.example/kernels/crashpanic\n" +
		"hint: TestB failed by itself; its root cause: precog explain -C testdata/kernels -run TestB example.com/p\n" +
		"hint: TestD failed by itself; its output shows a refused connection (dial tcp 10.1.2.3:4150: connect: connection refused): it may need a server, the network, a program or a file that this machine lacks, its environment rather than a bug; if not, its root cause: precog explain -C testdata/kernels -run TestD example.com/p\n" +
		"hint: TestE fails alone but passes with its package's other tests, as go test runs them: it needs what another test sets up (go test -run '^TestE$' example.com/p fails the same way)\n" +
		"hint: each test ran in a process of its own; one that needs what another test set up fails there, as under go test -run with its name alone\n"
	if b.String() != want {
		t.Errorf("hints:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	explainHints(&b, options{}, fs[2:3])
	if b.Len() > 0 {
		t.Errorf("hints for a race alone:\n%s", b.String())
	}
}

// TestDepsHint: findings with a goroutine that uninstrumented code started
// get one line at the end naming -instrument-deps; others none.
func TestDepsHint(t *testing.T) {
	fs := []finding.Finding{
		{Kind: finding.Race, Spawns: []finding.Site{finding.UnseenSpawn(), {}}},
		{Kind: finding.Race, Spawns: []finding.Site{{File: "/m/a.go", Line: 3, Role: finding.RoleGo}, {}}},
		{Kind: finding.ConNull, Spawns: []finding.Site{{}, finding.UnseenSpawn()}},
	}
	var b bytes.Buffer
	depsHint(&b, fs)
	want := "hint: 2 findings have goroutines that code precog did not instrument started (a dependency's go statement, or the standard library's): their starts and joins are not in the trace; -instrument-deps PATTERN instruments dependencies too\n"
	if b.String() != want {
		t.Errorf("hint:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	depsHint(&b, fs[1:2])
	if b.Len() > 0 {
		t.Errorf("hint for goroutines all seen:\n%s", b.String())
	}
	b.Reset()
	closed := finding.Finding{Kind: finding.Race, Evidence: finding.Evidence{Notes: []string{finding.UnseenClose + ": before ..."}}}
	depsHint(&b, append(fs[1:2], closed))
	want = "hint: in 1 finding, a goroutine received from a channel that no recorded close closed (a dependency's close, or the standard library's), which may order the two sides; -instrument-deps PATTERN instruments dependencies too\n"
	if b.String() != want {
		t.Errorf("hint for a close not recorded:\n%s\nwant:\n%s", b.String(), want)
	}
}
