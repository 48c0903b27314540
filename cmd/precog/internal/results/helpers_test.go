package results_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/precog-dev/precog/cmd/precog/internal/mergecmd"
	"github.com/precog-dev/precog/cmd/precog/internal/testcmd"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/corpus"
	"github.com/precog-dev/precog/internal/leakcheck"
	"github.com/precog-dev/precog/internal/precogbin"
	"github.com/precog-dev/precog/internal/sarif/sariftest"
)

// The nightly job's tests run precog test and precog merge on the
// kernels; they live here, not in testcmd, whose kernel tests take most
// of a package's time limit alone.

func TestMain(m *testing.M) {
	code := leakcheck.Main(m)
	precogbin.Remove()
	os.Exit(code)
}

// The commands the binary runs: importing them keys go test's cache of
// this package to their code, which the binary is built from.
var _, _ = testcmd.Command, mergecmd.Command

// kernels is the module of bug kernels and negative controls.
var kernels = corpus.Dir()

func decodeFindings(t *testing.T, stdout string) []finding.Finding {
	t.Helper()
	var fs []finding.Finding
	for line := range strings.Lines(stdout) {
		var f finding.Finding
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("-json output line %q: %v", line, err)
		}
		fs = append(fs, f)
	}
	return fs
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
}

func validateSARIF(t *testing.T, data []byte, results int) {
	t.Helper()
	if err := sariftest.Validate(data); err != nil {
		t.Fatalf("invalid SARIF: %v", err)
	}
	var log struct{ Runs []struct{ Results []any } }
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	if n := len(log.Runs[0].Results); n != results {
		t.Errorf("%d SARIF results, want %d", n, results)
	}
}
