package trace

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// TestTrim checks where Trim cuts a trace, and that the trimmed trace reads
// as the whole one did, not as a cut: Trim lowers the extent with it.
func TestTrim(t *testing.T) {
	hdr, block := AppendLiveHeader(nil, testHeader)
	lock := cat([]byte{byte(EvLock)}, uv(1), uv(1), uv(2))
	for _, tc := range []struct {
		name       string
		size, last int64 // file size and the offset of the end of its last batch
		want       int64
	}{
		{"zero tail", 64 << 10, 4200, 8 << 10},
		{"last chunk full", 64 << 10, 8 << 10, 8 << 10},
		{"ends in data", 5000, 5000, 5000},
		{"short tail in the last chunk", 5000, 4990, 5000},
		{"only the header", 64 << 10, int64(len(hdr)), 4 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := make([]byte, tc.size)
			copy(data, hdr)
			b := batch(1, lock...)
			copy(data[tc.last-int64(len(b)):], b)
			binary.LittleEndian.PutUint64(data[block+ExtentField:], uint64(tc.size))
			binary.LittleEndian.PutUint64(data[block+StateField:], uint64(Ended))
			path := filepath.Join(t.TempDir(), "t.trace")
			if err := os.WriteFile(path, data, 0o666); err != nil {
				t.Fatal(err)
			}
			if err := Trim(path); err != nil {
				t.Fatal(err)
			}
			trimmed, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(trimmed)) != tc.want {
				t.Errorf("trimmed to %d bytes, want %d", len(trimmed), tc.want)
			}
			_, evs, err := readAll(trimmed)
			if err != nil || len(evs) != 1 && tc.last > int64(len(hdr)) {
				t.Errorf("the trimmed trace reads as %d events, error %v", len(evs), err)
			}
		})
	}
}
