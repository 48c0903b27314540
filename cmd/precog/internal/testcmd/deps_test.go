package testcmd_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
)

// depsModule writes a module whose tests race through goroutines that
// code precog does not instrument started: the nested module
// example.com/dep's go statement (a proxy library's, as smokescreen's
// github.com/stripe/goproxy; held-out rehearsal 45), which orders
// Proxy's accesses by its wait and Count's not at all (a real race), and
// net/http's connection goroutine under httptest.NewServer
// (testdata/kernels' httpbefore).
func depsModule(t *testing.T) string {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/depgo\n\ngo 1.22\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ./dep\n")
	write(t, filepath.Join(dir, "dep", "go.mod"), "module example.com/dep\n\ngo 1.22\n")
	write(t, filepath.Join(dir, "dep", "dep.go"), `package dep

type Ctx struct{ UserData any }

// Handle runs the request hook, then dials on a goroutine of its own and
// waits for it.
func Handle(onRequest, dial func(*Ctx)) {
	c := &Ctx{}
	onRequest(c)
	done := make(chan struct{})
	go func() {
		defer close(done)
		dial(c)
	}()
	<-done
}
`)
	write(t, filepath.Join(dir, "dep", "spawn", "spawn.go"), `package spawn

// Go runs f on a goroutine of its own and does not wait for it.
func Go(f func()) { go f() }
`)
	write(t, filepath.Join(dir, "proxy.go"), `package depgo

import "example.com/dep"

type decision struct{ allow bool }

// Proxy's hook write is ordered before dial's read by dep's go statement.
func Proxy() bool {
	allowed := false
	dep.Handle(func(c *dep.Ctx) {
		c.UserData = &decision{allow: true}
	}, func(c *dep.Ctx) {
		allowed = c.UserData.(*decision).allow
	})
	return allowed
}
`)
	write(t, filepath.Join(dir, "proxy_test.go"), `package depgo

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestProxy(t *testing.T) {
	if !Proxy() {
		t.Fatal("denied")
	}
}

type greeter struct{ greeting string }

func (g *greeter) ServeHTTP(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, g.greeting) }

func TestGreet(t *testing.T) {
	g := &greeter{}
	srv := httptest.NewServer(g)
	defer srv.Close()
	got := make(chan string)
	go func() {
		resp, err := http.Get(srv.URL)
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		got <- string(body)
	}()
	g.greeting = "hello"
	<-got
}
`)
	// Count's test is in a package of its own, whose goroutine another
	// dependency package starts: the second pass records it on its own.
	write(t, filepath.Join(dir, "count", "count.go"), `package count

import (
	"sync"

	"example.com/dep/spawn"
)

// Count's two increments race: nothing orders spawn's goroutine's before
// or after its caller's.
func Count() int {
	var wg sync.WaitGroup
	n := 0
	wg.Add(1)
	spawn.Go(func() {
		n++
		wg.Done()
	})
	n++
	wg.Wait()
	return n
}
`)
	write(t, filepath.Join(dir, "count", "count_test.go"), `package count

import "testing"

func TestCount(t *testing.T) {
	if Count() == 0 {
		t.Fatal("no count")
	}
}
`)
	return dir
}

// TestDepsPatternMatchesNothing: an -instrument-deps element that matches
// no package the tests build is a usage error, one line that names it and
// suggests the build's module of the same last element.
func TestDepsPatternMatchesNothing(t *testing.T) {
	dir := depsModule(t)
	for _, c := range []struct{ pattern, want string }{
		{"example.com/nosuchdep", `-instrument-deps pattern "example.com/nosuchdep" matches no package that the packages under test build with`},
		{"example.com/dep/...,example.org/fork/dep/...", `-instrument-deps pattern "example.org/fork/dep/..." matches no package that the packages under test build with (did you mean example.com/dep/...?)`},
	} {
		_, stderr, code := precog(t, dir, "test", "-cache", sharedCache, "-instrument-deps", c.pattern, "./...")
		if code != cli.ExitUsage || stderr != "precog: "+c.want+"\n" {
			t.Errorf("-instrument-deps %s: exit %d, stderr %q; want %d and %q", c.pattern, code, stderr, cli.ExitUsage, c.want)
		}
	}
}

// TestDepsRerun: by default, the tests of the findings whose goroutine
// a dependency started are recorded again with it instrumented
// (virtual-kubelet's otel and singleflight findings, held-out rehearsal
// 55), each package with the dependencies it needs, apart: TestProxy's
// findings, which example.com/dep's go statement and its wait order,
// go; TestCount's race (its package's, with example.com/dep/spawn),
// which nothing orders, stays, validated from its own recording's
// build, and is what the results directory lists; the summary says what
// each part of the pass did; and the hints name only what remains
// (net/http's goroutine of TestGreet). -deps-rerun=false reports
// TestProxy's findings, with the hint that names the dependencies whose
// go statements started the findings' goroutines, with the
// -instrument-deps pattern that records them, and, the negative control,
// names net/http for the connection goroutine of the test's own server,
// with no flag.
func TestDepsRerun(t *testing.T) {
	dir := depsModule(t)
	tests := func(stdout string) map[string]int {
		n := make(map[string]int)
		for l := range strings.Lines(stdout) {
			if rest, ok := strings.CutPrefix(l, "\ttests: "); ok {
				for _, name := range strings.Split(strings.TrimSpace(rest), ", ") {
					n[name[strings.LastIndexByte(name, '.')+1:]]++
				}
			}
		}
		return n
	}
	off, stderr, code := precog(t, dir, "test", "-cache", sharedCache, "-deps-rerun=false", "-validate=false", "-cfp=false", "-timeout", "60s", "./...")
	if code != cli.ExitOK {
		t.Fatalf("-deps-rerun=false: exit %d, stderr:\n%s\nstdout:\n%s", code, stderr, off)
	}
	if n := tests(off); n["TestProxy"] == 0 || n["TestCount"] == 0 {
		t.Fatalf("-deps-rerun=false: findings by test %v, want TestProxy's and TestCount's; stdout:\n%s", n, off)
	}
	var hints []string
	for l := range strings.Lines(off) {
		if strings.HasPrefix(l, "hint: ") {
			hints = append(hints, l)
		}
	}
	dep := "goroutines that example.com/dep and example.com/dep/spawn started, whose starts and joins are not in the trace (-instrument-deps example.com/dep/... records them)\n"
	std := "goroutines that net/http started: no flag records the standard library's go statements, so their starts and joins are not in the trace\n"
	if len(hints) != 2 || !strings.HasSuffix(hints[0], dep) || !strings.HasSuffix(hints[1], std) {
		t.Errorf("-deps-rerun=false: hints:\n%s\nwant two, ending in:\n%s%s\nstdout:\n%s", strings.Join(hints, ""), dep, std, off)
	}
	ci := filepath.Join(t.TempDir(), "ci")
	on, stderr, code := precog(t, dir, "test", "-cache", sharedCache, "-cfp=false", "-timeout", "60s", "-ci", ci, "./...")
	if code != cli.ExitOK && code != cli.ExitFindings {
		t.Fatalf("exit %d, stderr:\n%s\nstdout:\n%s", code, stderr, on)
	}
	n := tests(on)
	if n["TestProxy"] != 0 || n["TestCount"] == 0 {
		t.Errorf("findings by test %v, want none of TestProxy and TestCount's race; stdout:\n%s", n, on)
	}
	// One line per plan: TestProxy's package with dep, TestCount's with
	// spawn, each recorded on its own.
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^re-recorded 1 test of 1 package with example.com/dep instrumented: [1-9][0-9]* findings? -> 0 \(gone: [0-9a-f]{12}(, [0-9a-f]{12})*( and [0-9]+ more)?\)$`),
		regexp.MustCompile(`(?m)^re-recorded 1 test of 1 package with example.com/dep/spawn instrumented: [1-9][0-9]* findings? -> [1-9][0-9]*( \(gone: [^)]*\))?$`),
	} {
		if !want.MatchString(stderr) {
			t.Errorf("stderr lacks the line matching %s:\n%s", want, stderr)
		}
	}
	if strings.Contains(on, "example.com/dep started") || !strings.Contains(on, "goroutines that net/http started") {
		t.Errorf("hints should name net/http alone:\n%s", on)
	}
	// The race of the second recording was validated from its own
	// build: its forced run found the goroutine the witness names.
	for l := range strings.Lines(on) {
		if strings.Contains(l, "\tid ") && strings.Contains(l, "the goroutine of") && strings.Contains(l, "never reached") {
			t.Errorf("a finding's forced run did not find its goroutine: %s", l)
		}
	}
	jsonl, err := os.ReadFile(filepath.Join(ci, "findings.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(jsonl), "TestProxy") || !strings.Contains(string(jsonl), "TestCount") {
		t.Errorf("findings.jsonl should list TestCount's race and nothing of TestProxy:\n%s", jsonl)
	}
}
