package record

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTrimTrace(t *testing.T) {
	for _, tc := range []struct {
		name       string
		size, last int64 // file size and the offset of its last non-zero byte (-1: none)
		want       int64
	}{
		{"zero tail", 64 << 10, 4200, 8 << 10},
		{"last chunk full", 64 << 10, 8<<10 - 1, 8 << 10},
		{"ends in data", 5000, 4999, 5000},
		{"short tail in the last chunk", 5000, 4990, 5000},
		{"all zero", 64 << 10, -1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := make([]byte, tc.size)
			for i := int64(0); i <= tc.last; i += 7 {
				data[i] = 1
			}
			if tc.last >= 0 {
				data[tc.last] = 1
			}
			path := filepath.Join(t.TempDir(), "t.trace")
			if err := os.WriteFile(path, data, 0o666); err != nil {
				t.Fatal(err)
			}
			if err := trimTrace(path); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() != tc.want {
				t.Errorf("trimmed to %d bytes, want %d", fi.Size(), tc.want)
			}
		})
	}
}
