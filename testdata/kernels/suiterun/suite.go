package suiterun

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// RunSuite runs the Test methods of s as subtests, as testify's suite.Run
// does: each subtest runs SetupTest, the method and TearDownTest, and
// none of them names the subtest's *testing.T. The function t.Run gets is
// a method value, not a literal taking the *testing.T.
func RunSuite(t *testing.T, s *StatsSuite) {
	v := reflect.ValueOf(s)
	for i := 0; i < v.NumMethod(); i++ {
		name := v.Type().Method(i).Name
		if !strings.HasPrefix(name, "Test") {
			continue
		}
		m := &method{s: s, name: name, f: v.Method(i).Interface().(func())}
		t.Run(name, m.run)
	}
}

type method struct {
	s    *StatsSuite
	name string
	f    func()
}

func (m *method) run(*testing.T) {
	m.s.Name = m.name
	m.s.SetupTest()
	m.f()
	m.s.TearDownTest()
}

// StatsSuite is a test suite of Stats, kept in package code as a shared
// test helper is: SetupTest gives each test method new Stats, and the
// methods note what went wrong in Failures.
type StatsSuite struct {
	Name     string
	Failures []string
	stats    *Stats
	runs     int
}

func (s *StatsSuite) failf(format string, args ...any) {
	s.Failures = append(s.Failures, s.Name+": "+fmt.Sprintf(format, args...))
}

// Runs returns how many tests SetupTest set up.
func (s *StatsSuite) Runs() int { return s.runs }

// SetupTest runs before each test method.
func (s *StatsSuite) SetupTest() {
	s.stats = NewStats()
	s.runs++
}

// TearDownTest runs after each test method.
func (s *StatsSuite) TearDownTest() {
	if s.stats.Keys() > 2 {
		s.failf("%d keys", s.stats.Keys())
	}
}

// TestRecord records two hits from two goroutines.
func (s *StatsSuite) TestRecord() {
	Record(s.stats, []string{"a", "b"})
	if s.stats.Hits() != 2 {
		s.failf("hits = %d, want 2", s.stats.Hits())
	}
}

// TestEmpty checks new Stats.
func (s *StatsSuite) TestEmpty() {
	if s.stats.Hits() != 0 {
		s.failf("hits = %d, want 0", s.stats.Hits())
	}
}

// TestAsync hits from a goroutine it waits for on an atomic flag.
func (s *StatsSuite) TestAsync() {
	var done atomic.Bool
	go func() {
		s.stats.Hit(s.Name)
		done.Store(true)
	}()
	for !done.Load() {
		runtime.Gosched()
	}
	if n := s.stats.Keys(); n != 1 {
		s.failf("keys = %d, want 1", n)
	}
}

// TestOne hits once.
func (s *StatsSuite) TestOne() {
	s.stats.Hit("a")
	if s.stats.Keys() != 1 {
		s.failf("keys = %d, want 1", s.stats.Keys())
	}
}
