package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/unicorn"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/trace"
)

var why = flag.String("why", "", "instead of the kernel table, explain Unicorn's verdict on the recording in `dir` (precog test -o): per test, its failing runs, the pairs Step 1 keeps in them with the trace's known order and with the trace's guessed order, and the top score")

// explainUnicorn prints, for each test of the recording in dir with
// several runs, what Unicorn had to rank: the runs that failed, how many
// access pairs each run gave with the order the trace knows (the default)
// and with the trace's order taken as a guess where it does not know it
// (Options.TraceOrder), and the top score and what Rank reported either
// way.
func explainUnicorn(dir string) error {
	ix, err := record.ReadIndex(dir)
	if err != nil {
		return err
	}
	sites, err := trace.LoadSites(filepath.Join(dir, ix.Sites))
	if err != nil {
		return err
	}
	for _, p := range ix.Packages {
		for _, t := range p.Tests {
			if len(t.Runs) == 0 {
				continue
			}
			files := []string{t.Trace}
			outcomes := []record.Outcome{t.Outcome}
			for _, r := range t.Runs {
				files = append(files, r.Trace)
				outcomes = append(outcomes, r.Outcome)
			}
			fmt.Printf("%s.%s\n", p.ImportPath, t.Name)
			for _, opts := range []unicorn.Options{{}, {TraceOrder: true}} {
				var runs []unicorn.Run
				failedPairs, passedPairs, failed, missing := 0, 0, 0, 0
				for i, f := range files {
					if f == "" {
						missing++
						continue
					}
					evs, err := readEvents(filepath.Join(dir, f))
					if err != nil {
						return err
					}
					rp := unicorn.Patterns(hb.Analyze(evs, hb.Options{Sites: sites}), opts)
					run := unicorn.Run{Patterns: rp, Failed: outcomes[i].Failed()}
					if run.Failed {
						failed++
						failedPairs += rp.Pairs
					} else {
						passedPairs += rp.Pairs
					}
					runs = append(runs, run)
				}
				top := 0.0
				if s := unicorn.Scores(runs); len(s) > 0 {
					top = s[0].Susp
				}
				name := "known order"
				if opts.TraceOrder {
					name = "trace order"
				}
				fmt.Printf("\t%s: %d of %d runs failed (%d without a trace); pairs in failing runs %d, in passing runs %d; top score %.2f; reported %d\n",
					name, failed, len(files), missing, failedPairs, passedPairs, top, len(unicorn.Rank(runs, sites, opts)))
			}
		}
	}
	return nil
}

func readEvents(path string) ([]trace.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tr, err := trace.ReadAll(f)
	if tr == nil {
		return nil, err
	}
	if err != nil && !errors.Is(err, trace.ErrBroken) {
		return nil, err
	}
	return tr.Events, nil
}
