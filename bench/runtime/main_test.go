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
