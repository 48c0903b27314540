package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/precog-dev/precog/detect/conmem"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/oscs"
	"github.com/precog-dev/precog/detect/races"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/trace"
)

// The -handoffs mode (issue 18): the findings of ConMem, OSCS and the race
// checker on the same recorded traces with and without the hand-off
// orders, so that the comparison does not depend on two runs' schedules.
//
//	before      the sync.Pool events removed from the trace, and
//	            hb.Options.NoTakes: hb as it was before either rule
//	pool        the Pool's Put before the Get that returns its object
//	pool+takes  and the takes out of a slot under a mutex (the default)

// maxHandoffGoroutines skips traces with more goroutines, as precog test's
// -max-goroutines does (vector clocks grow with their square).
const maxHandoffGoroutines = 10000

type variant struct {
	name    string
	noPool  bool
	noTakes bool
}

var variants = []variant{{"before", true, true}, {"pool", false, true}, {"pool+takes", false, false}}

// handoffs prints, for one recorded workload, the findings by kind under
// each variant, and the findings that differ.
func handoffs(name, dir string) error {
	ix, err := record.ReadIndex(dir)
	if err != nil {
		return err
	}
	sites, err := trace.LoadSites(filepath.Join(dir, ix.Sites))
	if err != nil {
		return err
	}
	found := make([]map[string]string, len(variants)) // per variant: ID -> one line
	for i := range found {
		found[i] = make(map[string]string)
	}
	traces, events, skipped := 0, 0, 0
	for _, p := range ix.Packages {
		for _, t := range p.Tests {
			if t.Trace == "" {
				continue
			}
			f, err := os.Open(filepath.Join(dir, t.Trace))
			if err != nil {
				return err
			}
			tr, _ := trace.ReadAll(f) // a broken trace's events before the damage count
			f.Close()
			if tr == nil {
				continue
			}
			begins := 0
			for _, ev := range tr.Events {
				if ev.Kind == trace.EvBegin {
					begins++
				}
			}
			if begins > maxHandoffGoroutines {
				skipped++
				continue
			}
			traces++
			events += len(tr.Events)
			for k, v := range variants {
				evs := tr.Events
				if v.noPool {
					evs = slices.DeleteFunc(slices.Clone(evs), func(ev trace.Event) bool {
						return ev.Kind == trace.EvPoolPut || ev.Kind == trace.EvPoolGet
					})
				}
				g := hb.Analyze(evs, hb.Options{Sites: sites, NoTakes: v.noTakes})
				fs := conmem.Check(g, sites, conmem.Options{})
				fs = append(fs, oscs.Check(g, sites, oscs.Options{})...)
				lo := hb.Analyze(evs, hb.Options{Sites: sites, LockOrder: true})
				fs = append(fs, races.Check(lo, sites, races.Options{})...)
				for _, f := range fs {
					found[k][f.ID] = line(f)
				}
			}
		}
	}
	fmt.Printf("\n%s: %d traces, %d events (%d traces over %d goroutines skipped)\n\n", name, traces, events, skipped, maxHandoffGoroutines)
	fmt.Println("| variant | con-* | oscs | race | total |")
	fmt.Println("|---|--:|--:|--:|--:|")
	for k, v := range variants {
		var con, os_, race int
		for _, l := range found[k] {
			switch {
			case strings.HasPrefix(l, "con-"):
				con++
			case strings.HasPrefix(l, "oscs"):
				os_++
			case strings.HasPrefix(l, "race"):
				race++
			}
		}
		fmt.Printf("| %s | %d | %d | %d | %d |\n", v.name, con, os_, race, len(found[k]))
	}
	for k := 1; k < len(variants); k++ {
		var gone, added []string
		for id, l := range found[k-1] {
			if _, ok := found[k][id]; !ok {
				gone = append(gone, l)
			}
		}
		for id, l := range found[k] {
			if _, ok := found[k-1][id]; !ok {
				added = append(added, l)
			}
		}
		slices.Sort(gone)
		slices.Sort(added)
		fmt.Printf("\n%s -> %s: %d gone, %d new\n", variants[k-1].name, variants[k].name, len(gone), len(added))
		for _, l := range gone {
			fmt.Println("  - " + l)
		}
		for _, l := range added {
			fmt.Println("  + " + l)
		}
	}
	var left []string
	for _, l := range found[len(variants)-1] {
		if !strings.HasPrefix(l, "race") {
			left = append(left, l)
		}
	}
	slices.Sort(left)
	fmt.Printf("\nleft with every rule (races not listed): %d\n", len(left))
	for _, l := range left {
		fmt.Println("  = " + l)
	}
	return nil
}

// line is a finding in one line: kind, sites (file:line role), message.
func line(f finding.Finding) string {
	var b strings.Builder
	b.WriteString(f.Kind)
	for _, s := range f.Sites {
		fmt.Fprintf(&b, " %s:%d(%s)", filepath.Base(s.File), s.Line, s.Role)
	}
	msg := f.Message
	if len(msg) > 140 {
		msg = msg[:140] + "..."
	}
	return b.String() + ": " + msg
}
