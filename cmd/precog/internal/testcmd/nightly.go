package testcmd

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/results"
	"github.com/precog-dev/precog/pipeline/predict"
	"github.com/precog-dev/precog/pipeline/shard"
)

// defaultEvery is how often a run prints its progress in a log (vet's
// period too).
const defaultEvery = 30 * time.Second

// nightly is what the nightly job's flags (-ci, -baseline, -shard) ask
// for, checked before anything runs.
type nightly struct {
	ci       string // the results directory, absolute; "" for none
	baseline results.Baseline
	only     func(pkg string, tests []string) []string // the shard's tests; nil for all
}

// nightly checks the nightly job's flags and prepares the results
// directory. Its errors are usage errors.
func (o *options) nightly(env *cli.Env) (*nightly, error) {
	n := &nightly{}
	if o.baseline != "" {
		b, err := results.ReadBaseline(env.Resolve(o.baseline))
		if err != nil {
			return nil, err
		}
		n.baseline = b
	}
	var times []shard.Time
	if o.ci != "" {
		n.ci = env.Resolve(o.ci)
		if o.out != "" && filepath.Clean(env.Resolve(o.out)) == filepath.Clean(n.ci) {
			return nil, fmt.Errorf("-ci and -o must name different directories: -o keeps the traces, -ci the results")
		}
	}
	if o.shardTimes != "" && o.shard == "" {
		return nil, fmt.Errorf("-shard-times balances -shard, which is not given")
	}
	if o.shard != "" {
		s, err := shard.Parse(o.shard)
		if err != nil {
			return nil, fmt.Errorf("-shard: %v", err)
		}
		switch {
		case o.shardTimes != "":
			times, err = readTimes(env.Resolve(o.shardTimes), true)
		case n.ci != "":
			times, err = readTimes(n.ci, false)
		}
		if err != nil {
			return nil, err
		}
		n.only = shard.New(s, times, o.cfp).Only
	}
	if n.ci != "" {
		if err := results.Prepare(n.ci); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// readTimes reads the test times of the results directory dir; a missing
// tests.json is an error only if the directory was named for its times.
func readTimes(dir string, must bool) ([]shard.Time, error) {
	data, err := os.ReadFile(filepath.Join(dir, results.TestsFile))
	if errors.Is(err, os.ErrNotExist) && !must {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("-shard-times: %v", err)
	}
	var ts []results.Test
	if err := json.Unmarshal(data, &ts); err != nil {
		return nil, fmt.Errorf("-shard-times: %s: %v", filepath.Join(dir, results.TestsFile), err)
	}
	times := make([]shard.Time, len(ts))
	for i, t := range ts {
		times[i] = shard.Time{Package: t.Package, Test: t.Name, Cost: t.Cost()}
	}
	return times, nil
}

// progressState keeps the last progress of a run for the plain lines a
// CI log gets.
type progressState struct {
	mu    sync.Mutex
	start time.Time
	p     predict.Progress
}

func (s *progressState) set(p predict.Progress) {
	s.mu.Lock()
	s.p = p
	s.mu.Unlock()
}

// line is the plain progress line: time since the start, tests recorded,
// events, findings so far, validation, the time left of the budget of the
// recording or the validation under way, and what is being done.
func (s *progressState) line() string {
	s.mu.Lock()
	p, start := s.p, s.start
	s.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "progress at %s: %d/%d tests, %d events, %d %s",
		time.Since(start).Round(time.Second), p.Done, p.Total, p.Events, p.Findings, cli.Plural(p.Findings, "finding", "findings"))
	if p.Validating > 0 {
		fmt.Fprintf(&b, ", %d/%d validated, %d confirmed", p.Validated, p.Validating, p.Confirmed)
		if !p.Deadline.IsZero() {
			fmt.Fprintf(&b, ", %s left of %s", max(time.Until(p.Deadline), 0).Round(time.Second), cmp.Or(p.Budget, "the validation budget"))
		}
	} else if !p.Deadline.IsZero() && p.Budget != "" {
		fmt.Fprintf(&b, ", %s left of %s", max(time.Until(p.Deadline), 0).Round(time.Second), p.Budget)
	}
	if p.Line != "" {
		fmt.Fprintf(&b, "; %s", p.Line)
	}
	return b.String()
}
