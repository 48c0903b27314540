package main

import (
	"slices"
	"testing"
)

func TestVariantEnv(t *testing.T) {
	env := []string{"HOME=/h", "GODEBUG=gctrace=1", "PATH=/p"}
	for _, c := range []struct {
		env      []string
		settings string
		want     []string
	}{
		{env, "", env},
		{env, "adaptivestackstart=0", []string{"HOME=/h", "PATH=/p", "GODEBUG=gctrace=1,adaptivestackstart=0"}},
		{[]string{"HOME=/h"}, "adaptivestackstart=0", []string{"HOME=/h", "GODEBUG=adaptivestackstart=0"}},
	} {
		if got := variantEnv(slices.Clone(c.env), c.settings); !slices.Equal(got, c.want) {
			t.Errorf("variantEnv(%q, %q) = %q, want %q", c.env, c.settings, got, c.want)
		}
	}
}

// TestSameOutcomes: a test that ends otherwise in one run drops the
// workload, but for the flaky ones and their subtests; a test missing from
// a run drops it too.
func TestSameOutcomes(t *testing.T) {
	run := func(o map[string]string) []sample { return []sample{{outcomes: o}} }
	pass := map[string]string{"TestA": "PASS", "TestFlaky": "PASS", "TestFlaky/sub": "PASS"}
	var all [numVariants][]sample
	for v := range numVariants {
		all[v] = run(pass)
	}
	if err := sameOutcomes(all, nil); err != nil {
		t.Errorf("the same outcomes: %v", err)
	}
	all[precog] = run(map[string]string{"TestA": "PASS", "TestFlaky": "FAIL", "TestFlaky/sub": "FAIL"})
	if err := sameOutcomes(all, []string{"TestFlaky"}); err != nil {
		t.Errorf("a flaky test's failure: %v", err)
	}
	if err := sameOutcomes(all, nil); err == nil {
		t.Error("a test that failed in one run only: no error")
	}
	all[precog] = run(map[string]string{"TestA": "FAIL", "TestFlaky": "PASS", "TestFlaky/sub": "PASS"})
	if err := sameOutcomes(all, []string{"TestFlaky"}); err == nil {
		t.Error("another test's failure beside a flaky one: no error")
	}
	all[precog] = run(map[string]string{"TestFlaky": "PASS"})
	if err := sameOutcomes(all, []string{"TestFlaky"}); err == nil {
		t.Error("a test missing from a run: no error")
	}
}
