package predict

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestForeignOut checks that precog test refuses an output directory that
// is not its own before any work: the module is not even loaded (it does
// not exist, which would be the error otherwise) and the cache stays
// empty.
func TestForeignOut(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	os.Mkdir(out, 0o777)
	os.WriteFile(filepath.Join(out, "index.json"), []byte("{}"), 0o666)
	cache := filepath.Join(tmp, "cache")
	_, err := Run(t.Context(), Options{Dir: filepath.Join(tmp, "nomodule"), Out: out, CacheDir: cache})
	if err == nil || !strings.Contains(err.Error(), "was not written by precog") {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Errorf("the cache was made before the refusal: %v", err)
	}
}
