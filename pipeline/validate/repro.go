package validate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/races"
	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/pipeline/instrument"
	"github.com/precog-dev/precog/pipeline/proc"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/trace"
)

// Build instruments the schedule's packages as precog test did (through
// precog's cache at cacheDir, "" for the default), builds the test binary
// of its package into binDir, and checks that the sites of the plan are
// still the code the schedule was made for. It returns the binary's path.
func (s *Schedule) Build(ctx context.Context, cacheDir, binDir string) (string, error) {
	cfg := instrument.Config{
		Dir: s.Dir, Patterns: s.Patterns, BuildFlags: s.BuildFlags,
		All: s.All, Funcs: s.Funcs, Deps: s.Deps, CacheDir: cacheDir,
	}
	if s.CFP {
		all := instrument.AllCFP
		cfg.CFP = &all
	}
	inst, err := instrument.Instrument(ctx, cfg)
	if err != nil {
		return "", err
	}
	sites, err := trace.LoadSites(inst.Sites)
	if err != nil {
		return "", err
	}
	if err := s.Check(sites); err != nil {
		return "", err
	}
	bin := filepath.Join(binDir, record.BinaryName(s.Package))
	args := append(append([]string{"test", "-c", "-o", bin}, inst.BuildFlags...), s.BuildFlags...)
	cmd := proc.Command(ctx, "go", append(args, s.Package)...)
	cmd.Dir = s.Dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go test -c %s: %s", s.Package, firstLine(out.String(), err))
	}
	return bin, nil
}

// Replay runs the test binary bin under the schedule's plan, with the
// plan and its result in the directory work, and classifies the run as
// validation did: once, or up to Repeat times until the test fails as
// predicted.
func (s *Schedule) Replay(ctx context.Context, bin, work string) (Verdict, Run, error) {
	for i := 1; ; i++ {
		v, r, err := s.replay(ctx, bin, work)
		if err != nil || v.Status == finding.Confirmed || i >= s.Repeat {
			return v, r, err
		}
	}
}

func (s *Schedule) replay(ctx context.Context, bin, work string) (Verdict, Run, error) {
	pl := *s.Plan
	pl.Result = filepath.Join(work, "result.jsonl")
	planPath := filepath.Join(work, "plan.json")
	if err := control.WritePlan(planPath, &pl); err != nil {
		return Verdict{}, Run{}, err
	}
	t := Target{Binary: bin, Dir: s.PackageDir, Args: s.Args, Timeout: s.TimeoutNs, Passed: true}
	os.Remove(pl.Result)
	r := Force(ctx, t, planPath)
	r.Control, r.ControlErr = readControl(pl.Result, &pl)
	o := Order{What: s.Order, Edges: pl.Edges, Together: pl.Together}
	v := Classify(s.Finding, o, r, true)
	if s.Finding.Kind == races.Kind && v.Status == finding.NotConfirmed && v.Apart != "" && held(r.Control) && !v.Crashed {
		// The order held on other memory: say so, rather than that
		// the test passed, and with validation's word when the run
		// named both (Validator.race).
		if v.Elsewhere {
			v.Status = finding.Apart
		}
		v.Reason = fmt.Sprintf("with %s, %s", o.What, v.Apart)
	}
	if s.Finding.Kind == races.Kind && v.Status == finding.NotConfirmed && v.Apart == "" && held(r.Control) {
		// A data race is its two accesses adjacent on one piece of
		// memory, whether or not the test noticed: validation
		// confirmed it by both orders, each such a run; the
		// reproducer makes one of them again.
		if a, _, ok := raceSteps(s.Finding, o); ok {
			addr, _, _ := r.Control.Touched(a)
			v = Verdict{Status: finding.Confirmed, Effect: "reordered", MaxWait: v.MaxWait,
				Reason: fmt.Sprintf("with %s, the two accesses ran adjacent, both on address %#x", o.What, addr)}
		}
	}
	return v, r, nil
}

func firstLine(s string, err error) string {
	for _, l := range bytes.Split([]byte(s), []byte("\n")) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			return string(t)
		}
	}
	return err.Error()
}
