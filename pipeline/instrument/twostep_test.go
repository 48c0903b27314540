package instrument

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"
)

// TestLockStep checks the two-step analysis on testdata/src/twostep: the
// locking operations' facts (the want comments) and the two-steps, named
// by the lock:NAME marks of their Lock lines.
func TestLockStep(t *testing.T) {
	dir := analysistest.TestData()
	src, err := os.ReadFile(filepath.Join(dir, "src", "twostep", "twostep.go"))
	if err != nil {
		t.Fatal(err)
	}
	names := make(map[string]string) // "line" -> mark
	mark := regexp.MustCompile(`// lock:(\w+)`)
	for i, line := range strings.Split(string(src), "\n") {
		if m := mark.FindStringSubmatch(line); m != nil {
			names[strconv.Itoa(i+1)] = m[1]
		}
	}
	var got []string
	for _, r := range analysistest.Run(t, dir, lockStepAnalyzer, "twostep") {
		pairs, _ := r.Result.([]lockPair)
		for _, p := range pairs {
			if !strings.Contains(p.From, "twostep.go:") || !strings.Contains(p.To, "twostep.go:") {
				continue
			}
			got = append(got, lineName(t, names, p.From)+">"+lineName(t, names, p.To))
		}
	}
	slices.Sort(got)
	got = slices.Compact(got)
	// SetIfZero and Reset (through a package-level table) check, then
	// act; Sum calls Cache.Get, which locks one of c's tables, in a loop;
	// Bump sets, then gets through one field. Copy and Swap use two
	// objects, and the test file's loop is test code.
	want := []string{"get>get", "get>set", "set>get"}
	if !slices.Equal(got, want) {
		t.Errorf("two-steps %v, want %v", got, want)
	}
}

func lineName(t *testing.T, names map[string]string, pos string) string {
	parts := strings.Split(pos, ":")
	if len(parts) < 2 {
		t.Fatalf("position %q", pos)
	}
	if n, ok := names[parts[len(parts)-1]]; ok && strings.HasSuffix(parts[len(parts)-2], "twostep.go") {
		return n
	}
	t.Fatalf("position %q is not a marked Lock", pos)
	return ""
}
