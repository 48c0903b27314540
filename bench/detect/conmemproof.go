package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/precog-dev/precog/detect/conmem"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/trace"
)

// conmemProof compares, on every trace of the recording in dir, the
// findings of the kinds conmem.CheckStream reports (con-null, con-uninit,
// con-closed, con-index, con-map) and the test lifetime check's of the
// in-memory path (trace.ReadAll, hb.Analyze, conmem.Check without the
// spin-loop inference, which CheckStream does not make, and
// conmem.TestLifetime on the LockOrder graph) with CheckStream's and
// conmem.CheckTestLifetimeStream's at each window of windows, by finding
// ID (kind and sites): the traces whose two sets are the same, and the
// findings only one path has, each printed. The streamed CPU is both
// walks'.
func conmemProof(dir string, windows []int) error {
	ix, err := record.ReadIndex(dir)
	if err != nil {
		return err
	}
	sites, err := trace.LoadSites(filepath.Join(dir, ix.Sites))
	if err != nil {
		return err
	}
	type sum struct {
		traces, events, findings, same, extra, missed, withheld int
		cpu                                                     time.Duration
	}
	var mem sum
	str := make([]sum, len(windows))
	ids := func(fs []finding.Finding) []string {
		var out []string
		for _, f := range fs {
			switch f.Kind {
			case finding.ConNull, finding.ConUninit, finding.ConClosed, finding.ConIndex, finding.ConMap:
				out = append(out, f.ID)
			}
		}
		slices.Sort(out)
		return out
	}
	for _, p := range ix.Packages {
		for _, t := range p.Tests {
			if t.Trace == "" {
				continue
			}
			path := filepath.Join(dir, t.Trace)
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			start := cpu()
			tr, err := trace.ReadAll(f)
			f.Close()
			if err != nil && !errors.Is(err, trace.ErrBroken) {
				return fmt.Errorf("%s: %w", path, err)
			}
			all := conmem.Check(hb.Analyze(tr.Events, hb.Options{Sites: sites}), sites, conmem.Options{NoSpinLoops: true})
			all = append(all, conmem.TestLifetime(hb.Analyze(tr.Events, hb.Options{Sites: sites, LockOrder: true}), sites)...)
			want := ids(all)
			mem.cpu += cpu() - start
			mem.traces++
			mem.events += len(tr.Events)
			mem.findings += len(want)
			for k, w := range windows {
				start := cpu()
				var st, lst conmem.StreamStats
				streamed, err := walkStreamed(path, func(next func() (trace.Event, error)) ([]finding.Finding, error) {
					return conmem.CheckStream(next, sites, conmem.StreamOptions{Window: w, Stats: &st})
				})
				if err != nil {
					return err
				}
				life, err := walkStreamed(path, func(next func() (trace.Event, error)) ([]finding.Finding, error) {
					return conmem.CheckTestLifetimeStream(next, sites, w, &lst)
				})
				if err != nil {
					return err
				}
				st.Withheld += lst.Withheld
				streamed = append(streamed, life...)
				got := ids(streamed)
				s := &str[k]
				s.cpu += cpu() - start
				s.traces++
				s.events += st.Events
				s.findings += len(got)
				s.withheld += st.Withheld
				if slices.Equal(got, want) {
					s.same++
					continue
				}
				for _, fd := range streamed {
					if !slices.Contains(want, fd.ID) {
						s.extra++
						fmt.Printf("%s: window %d: streamed only: %s %s\n", t.Trace, w, fd.Kind, fd.Message)
					}
				}
				for _, fd := range all {
					if slices.Contains(want, fd.ID) && !slices.Contains(got, fd.ID) {
						s.missed++
						fmt.Printf("%s: window %d: in memory only: %s %s\n", t.Trace, w, fd.Kind, fd.Message)
					}
				}
			}
		}
	}
	fmt.Printf("%s: in memory: %d traces, %d events, %d findings of the streamed kinds, %.1f s CPU\n",
		dir, mem.traces, mem.events, mem.findings, mem.cpu.Seconds())
	for k, w := range windows {
		s := str[k]
		fmt.Printf("%s: streamed, window %d: %d traces (%d the same findings), %d events, %d findings (%d streamed only, %d in memory only), %d withheld, %.1f s CPU\n",
			dir, w, s.traces, s.same, s.events, s.findings, s.extra, s.missed, s.withheld, s.cpu.Seconds())
	}
	return nil
}

// walkStreamed runs check, a streamed checker, on the events of the trace
// at path in the global order (trace.OrderedReader). A trace broken at
// its end gives the findings of the events before the damage.
func walkStreamed(path string, check func(next func() (trace.Event, error)) ([]finding.Finding, error)) ([]finding.Finding, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	o, err := trace.NewOrderedReader(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fs, err := check(o.Next)
	if err != nil && !errors.Is(err, trace.ErrBroken) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return fs, nil
}
