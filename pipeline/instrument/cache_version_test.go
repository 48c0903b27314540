package instrument

import "testing"

func TestOlder(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"1.21", "1.22", true},
		{"1.22", "1.22", false},
		{"1.22.3", "1.22", false},
		{"1.21rc1", "1.18", false},  // semver would call a prerelease older
		{"1.22rc1", "1.22.0", true}, // "1.22" is the language version, below every release of it
		{"1.9", "1.18", true},
	} {
		if got := older(tc.a, tc.b); got != tc.want {
			t.Errorf("older(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
