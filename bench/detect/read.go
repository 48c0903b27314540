package main

import (
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/precog-dev/precog/detect/conmem"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/races"
	"github.com/precog-dev/precog/shim/trace"
)

// readTrace reads the trace at path the way how says and prints what it
// read, its CPU time and the live heap after a collection; its peak RSS
// is the process's, for /usr/bin/time -v to report:
//
//   - "all": trace.ReadAll, the events held in memory;
//   - "hb": trace.ReadAll, then hb.Analyze without LockOrder;
//   - "stream": a trace.OrderedReader, each event dropped once read (and
//     counted by kind);
//   - "races": races.CheckStream over a trace.OrderedReader (-window,
//     -sites);
//   - "racesmem": trace.ReadAll, hb.Analyze with LockOrder and races.Check,
//     the in-memory path (-sites);
//   - "conmem": conmem.CheckStream over a trace.OrderedReader (-window,
//     -sites);
//   - "conmemmem": trace.ReadAll, hb.Analyze and conmem.Check without the
//     spin-loop inference, the in-memory path of the kinds CheckStream
//     reports (-sites).
func readTrace(path, how string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	start := cpu()
	wall := time.Now()
	var n int
	var keep any
	switch how {
	case "all":
		tr, err := trace.ReadAll(f)
		if err != nil {
			return err
		}
		n, keep = len(tr.Events), tr
		h := fnv.New64a()
		for _, ev := range tr.Events {
			fmt.Fprintf(h, "%v\n", ev)
		}
		fmt.Printf("%s: digest %016x\n", path, h.Sum64())
	case "stream":
		o, err := trace.NewOrderedReader(f, fi.Size())
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "detect: first pass %.1f s CPU\n", (cpu() - start).Seconds())
		var last trace.Event
		var kinds [256]int
		defer func() {
			var b strings.Builder
			for k, c := range kinds {
				if c > 0 {
					fmt.Fprintf(&b, " %s %d", trace.Kind(k), c)
				}
			}
			fmt.Printf("%s: events by kind:%s\n", path, b.String())
		}()
		for {
			ev, err := o.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if ev.Seq < last.Seq {
				return fmt.Errorf("event %d out of order", n)
			}
			last = ev
			kinds[ev.Kind]++
			n++
		}
	case "hb":
		tr, err := trace.ReadAll(f)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "detect: read in %.1f s CPU\n", (cpu() - start).Seconds())
		g := hb.Analyze(tr.Events, hb.Options{})
		n, keep = len(tr.Events), g
	case "racesmem":
		// The in-memory path precog test takes under -max-trace.
		var sites *trace.SiteTable
		if *sitesFile != "" {
			if sites, err = trace.LoadSites(*sitesFile); err != nil {
				return err
			}
		}
		tr, err := trace.ReadAll(f)
		if err != nil {
			return err
		}
		g := hb.Analyze(tr.Events, hb.Options{Sites: sites, LockOrder: true})
		var st races.Stats
		fs := races.Check(g, sites, races.Options{Stats: &st})
		for _, f := range fs {
			fmt.Printf("%s: %s\n", path, f.Message)
		}
		fmt.Printf("%s: %d races; %+v\n", path, len(fs), st)
		n, keep = len(tr.Events), g
	case "races":
		var sites *trace.SiteTable
		if *sitesFile != "" {
			if sites, err = trace.LoadSites(*sitesFile); err != nil {
				return err
			}
		}
		o, err := trace.NewOrderedReader(f, fi.Size())
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "detect: first pass %.1f s CPU\n", (cpu() - start).Seconds())
		var st races.Stats
		fs, err := races.CheckStream(o.Next, sites, races.Options{Window: *window, Stats: &st})
		if err != nil {
			return err
		}
		for _, f := range fs {
			fmt.Printf("%s: %s\n", path, f.Message)
		}
		fmt.Printf("%s: %d races; %+v\n", path, len(fs), st)
		n = st.Events
	case "conmem", "conmemmem":
		var sites *trace.SiteTable
		if *sitesFile != "" {
			if sites, err = trace.LoadSites(*sitesFile); err != nil {
				return err
			}
		}
		var fs []finding.Finding
		if how == "conmem" {
			o, err := trace.NewOrderedReader(f, fi.Size())
			if err != nil {
				return err
			}
			var st conmem.StreamStats
			if fs, err = conmem.CheckStream(o.Next, sites, conmem.StreamOptions{Window: *window, Stats: &st}); err != nil {
				return err
			}
			fmt.Printf("%s: %+v\n", path, st)
			n = st.Events
		} else {
			tr, err := trace.ReadAll(f)
			if err != nil {
				return err
			}
			g := hb.Analyze(tr.Events, hb.Options{Sites: sites})
			fs = conmem.Check(g, sites, conmem.Options{NoSpinLoops: true})
			n, keep = len(tr.Events), g
		}
		kinds := map[string]int{}
		for _, f := range fs {
			kinds[f.Kind]++
			fmt.Printf("%s: %s %s\n", path, f.Kind, f.Message)
		}
		fmt.Printf("%s: %d findings %v\n", path, len(fs), kinds)
	default:
		return fmt.Errorf("-read-how %q: want all, hb, stream, lookahead, races, racesmem, conmem or conmemmem", how)
	}
	took := cpu() - start
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("%s: %d events, %d bytes, %s: %.1f s CPU, %.1f s wall, live heap %.1f MiB\n",
		path, n, fi.Size(), how, took.Seconds(), time.Since(wall).Seconds(), float64(ms.HeapAlloc)/(1<<20))
	runtime.KeepAlive(keep)
	return nil
}

// cpu is the process's CPU time so far, user and system.
func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
