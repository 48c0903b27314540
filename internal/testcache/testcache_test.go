package testcache

import (
	"testing"
	"time"

	"github.com/precog-dev/precog/internal/exehash"
)

// TestCodeHash checks that a test binary of this tree gets a code hash,
// the same each time, and that Dir makes exehash.Sum return it.
func TestCodeHash(t *testing.T) {
	start := time.Now()
	sum := codeHash()
	t.Logf("code hash %s in %v", sum, time.Since(start))
	if len(sum) != 64 {
		t.Fatalf("codeHash() = %q, want a SHA-256 in hex", sum)
	}
	if again := codeHash(); again != sum {
		t.Errorf("codeHash() = %s, then %s", sum, again)
	}
	Dir()
	if got, err := exehash.Sum(); got != sum || err != nil {
		t.Errorf("after Dir, exehash.Sum() = %q, %v; want %q", got, err, sum)
	}
}
