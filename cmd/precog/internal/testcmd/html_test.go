package testcmd_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/report/htmltest"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/headless"
	"github.com/precog-dev/precog/internal/precogbin"
)

// TestHTMLReport runs precog test -html on two kernels, with their call
// stacks (-funcs), and checks the report in headless Chromium against the
// findings -json printed in the same run: every finding shown, confirmed
// ones first, with its status, reproducer, and a timeline of the order
// validation forced, whose steps the findings now carry. With
// PRECOG_REPORT_SCREENSHOT=FILE it saves the screenshot (docs/report.png).
func TestHTMLReport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two kernels")
	}
	// The browser first: without one the run would check nothing that
	// TestTestOutput does not (findings carry their forced order).
	bin := headless.Browser(t)
	page := filepath.Join(t.TempDir(), "report.html")
	stdout, stderr, code := precogbin.Run(t, kernels, "test", "-json", "-funcs", "-html", page, "-cache", sharedCache, "-timeout", "20s", "./mysql", "./doneadd")
	if code != cli.ExitFindings {
		t.Fatalf("exit %d, want 3:\n%s", code, stderr)
	}
	fs := decodeFindings(t, stdout)
	forced := 0
	for _, f := range fs {
		v := f.Validation
		if v == nil || v.Runs == 0 || len(f.Witnesses) == 0 {
			continue
		}
		if v.Order == nil || len(v.Order.Edges)+len(v.Order.Together) == 0 {
			t.Errorf("finding %s (%s, %s) was forced %d times but carries no order", f.ID, f.Kind, f.Status, v.Runs)
			continue
		}
		if f.Status == finding.Confirmed {
			forced++
		}
	}
	if forced < 2 {
		t.Errorf("%d confirmed findings with a forced order, want the con-null and the con-uninit at least", forced)
	}
	if err := htmltest.Check(headless.DOM(t, bin, page), fs); err != nil {
		t.Error(err)
	}
	img := headless.Screenshot(t, bin, page, 1400, 1800, os.Getenv("PRECOG_REPORT_SCREENSHOT"))
	if b := img.Bounds(); b.Dx() != 1400 || b.Dy() != 1800 {
		t.Errorf("screenshot is %v, want 1400x1800", b)
	}
	if n := headless.Count(img, 0xcf222e); n < 500 {
		t.Errorf("screenshot: %d pixels of the confirmed red (badges, forced arrows), want at least 500", n)
	}
}
