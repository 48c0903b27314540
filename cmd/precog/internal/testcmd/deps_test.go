package testcmd_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
)

// depsModule writes a module whose tests race through goroutines that
// code precog does not instrument started: the nested module
// example.com/dep's go statement (a proxy library's, as smokescreen's
// github.com/stripe/goproxy; held-out rehearsal 45) and net/http's
// connection goroutine under httptest.NewServer (testdata/kernels'
// httpbefore).
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
	return dir
}

// TestDepsHintNamesStarter: the hint names the dependency whose go
// statement started a finding's goroutine, with the -instrument-deps
// pattern that records it, and, the negative control, names net/http for
// the connection goroutine of the test's own server, with no flag.
func TestDepsHintNamesStarter(t *testing.T) {
	dir := depsModule(t)
	stdout, stderr, code := precog(t, dir, "test", "-cache", sharedCache, "-validate=false", "-cfp=false", "-timeout", "60s", "./...")
	if code != cli.ExitOK { // predicted findings only
		t.Fatalf("exit %d, stderr:\n%s\nstdout:\n%s", code, stderr, stdout)
	}
	var hints []string
	for l := range strings.Lines(stdout) {
		if strings.HasPrefix(l, "hint: ") {
			hints = append(hints, l)
		}
	}
	dep := "goroutines that example.com/dep started, whose starts and joins are not in the trace (-instrument-deps example.com/dep/... records them)\n"
	std := "goroutines that net/http started: no flag records the standard library's go statements, so their starts and joins are not in the trace\n"
	if len(hints) != 2 || !strings.HasSuffix(hints[0], dep) || !strings.HasSuffix(hints[1], std) {
		t.Errorf("hints:\n%s\nwant two, ending in:\n%s%s\nstdout:\n%s", strings.Join(hints, ""), dep, std, stdout)
	}
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
