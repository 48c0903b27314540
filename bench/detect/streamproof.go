package main

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/races"
	"github.com/precog-dev/precog/pipeline/control"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/trace"
)

// streamProof compares, on every trace of the recording in dir, the race
// findings of the in-memory path (trace.ReadAll, hb.Analyze with
// LockOrder, races.Check, the witnesses' Locks named by
// control.NameLocks, as precog test does) with races.CheckStream's at each
// window of windows. It prints a digest of each path's findings (their
// JSON, trace by trace), whether a streamed run gave the same bytes, and,
// for every streamed race, whether its two accesses are unordered in the
// in-memory graph (a race that is not would be a false one the window
// made).
func streamProof(dir string, windows []int) error {
	ix, err := record.ReadIndex(dir)
	if err != nil {
		return err
	}
	sites, err := trace.LoadSites(filepath.Join(dir, ix.Sites))
	if err != nil {
		return err
	}
	type sum struct {
		traces, events, findings, same, unordered, ordered int
		withheld, unsettledTraces                          int
		h                                                  [32]byte
		cpu                                                time.Duration
	}
	mem := &sum{}
	memH := sha256.New()
	str := make([]sum, len(windows))
	strH := make([]interface {
		Write([]byte) (int, error)
		Sum([]byte) []byte
	}, len(windows))
	for k := range windows {
		strH[k] = sha256.New()
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
			g := hb.Analyze(tr.Events, hb.Options{Sites: sites, LockOrder: true})
			want := races.Check(g, sites, races.Options{})
			pts := control.Points(tr.Events)
			for i := range want {
				for j := range want[i].Witnesses {
					control.NameLocks(tr.Events, pts, &want[i].Witnesses[j])
				}
			}
			mem.cpu += cpu() - start
			wantJSON, _ := json.Marshal(want)
			fmt.Fprintf(memH, "%s\n%s\n", t.Trace, wantJSON)
			mem.traces++
			mem.events += len(tr.Events)
			mem.findings += len(want)
			for k, w := range windows {
				f, err := os.Open(path)
				if err != nil {
					return err
				}
				fi, _ := f.Stat()
				start := cpu()
				o, err := trace.NewOrderedReader(f, fi.Size())
				if err != nil {
					f.Close()
					return fmt.Errorf("%s: %w", path, err)
				}
				var st races.Stats
				got, err := races.CheckStream(o.Next, sites, races.Options{Window: w, Stats: &st})
				f.Close()
				if err != nil && !errors.Is(err, trace.ErrBroken) {
					return fmt.Errorf("%s: %w", path, err)
				}
				s := &str[k]
				s.cpu += cpu() - start
				gotJSON, _ := json.Marshal(got)
				fmt.Fprintf(strH[k], "%s\n%s\n", t.Trace, gotJSON)
				s.traces++
				s.events += st.Events
				s.findings += len(got)
				s.withheld += st.Withheld
				if string(gotJSON) == string(wantJSON) {
					s.same++
				}
				for _, fd := range got {
					ev := fd.Witnesses[0].Events
					if g.Concurrent(ev[0].Index, ev[1].Index) {
						s.unordered++
					} else {
						s.ordered++
						fmt.Printf("%s: window %d: %s: the two accesses are ordered in the in-memory graph\n", t.Trace, w, fd.Message)
					}
				}
			}
		}
	}
	fmt.Printf("%s: in memory: %d traces, %d events, %d race findings, digest %x, %.1f s CPU\n",
		dir, mem.traces, mem.events, mem.findings, memH.Sum(nil)[:8], mem.cpu.Seconds())
	for k, w := range windows {
		s := str[k]
		fmt.Printf("%s: streamed, window %d: %d traces (%d the same bytes), %d events, %d race findings (%d unordered in memory, %d ordered), %d accesses withheld, digest %x, %.1f s CPU\n",
			dir, w, s.traces, s.same, s.events, s.findings, s.unordered, s.ordered, s.withheld, strH[k].Sum(nil)[:8], s.cpu.Seconds())
	}
	return nil
}
