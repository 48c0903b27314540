package hwreplaycmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/report"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/oscs"
	"github.com/precog-dev/precog/hwmodel"
	"github.com/precog-dev/precog/hwmodel/ahb"
	"github.com/precog-dev/precog/hwmodel/cache"
)

// tally is the replay of all traces at one setting.
type tally struct {
	cfg      hwmodel.Config
	findings []finding.Finding // merged over the traces by finish
	hw       map[string]hwmodel.HW
	traces   int
	events   int
	timing   hwmodel.Timing
	caches   cache.Stats
	ahbs     ahb.Stats
	replay   time.Duration // in hwmodel.Replay alone
	// wall sums the run times of the traces whose index gave one, and
	// extra the cycles the hardware added to those traces.
	wall  time.Duration
	extra int64

	all          []finding.Finding
	swHas, hwHas map[string]bool
	lost         map[string]hwmodel.HW
}

func newTally(cfg hwmodel.Config) *tally {
	return &tally{cfg: cfg, hw: make(map[string]hwmodel.HW), swHas: make(map[string]bool), hwHas: make(map[string]bool), lost: make(map[string]hwmodel.HW)}
}

// add replays one trace, whose software OSCS-Opt findings are sw.
func (t *tally) add(tr loaded, sw []finding.Finding, opts oscs.Options) {
	start := time.Now()
	m := hwmodel.Replay(tr.g, t.cfg)
	t.replay += time.Since(start)
	res := hwmodel.Compare(tr.g, tr.sites, m, sw, opts)
	t.traces++
	t.events += len(tr.g.Events)
	t.timing.Add(m.Timing)
	t.caches.Add(m.Cache)
	t.ahbs.Add(m.AHB)
	if tr.wall > 0 {
		t.wall += tr.wall
		t.extra += m.Timing.Extra()
	}
	for _, f := range res.Findings {
		f.Tests = []string{tr.name}
		f.Reports = 1
		v := res.HW[f.ID]
		switch v.Verdict {
		case hwmodel.Kept:
			t.swHas[f.ID], t.hwHas[f.ID] = true, true
		case hwmodel.Lost:
			t.swHas[f.ID] = true
			if _, ok := t.lost[f.ID]; !ok {
				t.lost[f.ID] = v
			}
		case hwmodel.HardwareOnly:
			t.hwHas[f.ID] = true
		}
		t.all = append(t.all, f)
	}
}

// finish merges the findings of the traces: a finding the hardware caught
// in one trace is kept, whatever it lost in others.
func (t *tally) finish() {
	t.findings = finding.Merge(t.all)
	t.all = nil
	for _, f := range t.findings {
		switch {
		case t.swHas[f.ID] && t.hwHas[f.ID]:
			t.hw[f.ID] = hwmodel.HW{Verdict: hwmodel.Kept}
		case t.swHas[f.ID]:
			t.hw[f.ID] = t.lost[f.ID]
		default:
			t.hw[f.ID] = hwmodel.HW{Verdict: hwmodel.HardwareOnly, Detail: "the hardware's history still held an access that software's two-slot history had replaced"}
		}
	}
}

func (t *tally) wallShare() float64 {
	if t.wall <= 0 {
		return 0
	}
	return wallShare(t.extra, t.cfg.Cache.GHz, t.wall)
}

// counts returns software's findings, the kept ones, the hardware-only ones
// and the losses by reason.
func (t *tally) counts() (sw, kept, only int, lost map[hwmodel.Reason]int) {
	lost = make(map[hwmodel.Reason]int)
	for _, v := range t.hw {
		switch v.Verdict {
		case hwmodel.Kept:
			sw++
			kept++
		case hwmodel.Lost:
			sw++
			lost[v.Reason]++
		case hwmodel.HardwareOnly:
			only++
		}
	}
	return sw, kept, only, lost
}

var reasons = []hwmodel.Reason{hwmodel.ReasonNotShared, hwmodel.ReasonSameCore, hwmodel.ReasonTagLost, hwmodel.ReasonEvicted, hwmodel.ReasonHistory}

func lossText(lost map[hwmodel.Reason]int) string {
	var parts []string
	for _, r := range reasons {
		if n := lost[r]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", r, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// printFindings writes the findings with precog test's writers (package
// report), each with the two verdicts: as notes in text, as a "hardware"
// object after the finding's own fields in JSON.
func printFindings(env *cli.Env, asJSON bool, t *tally) error {
	bw := bufio.NewWriter(env.Stdout)
	if asJSON {
		for _, f := range t.findings {
			line, err := jsonLine(f, t.hw[f.ID])
			if err != nil {
				return err
			}
			bw.Write(line)
		}
		return bw.Flush()
	}
	dir := env.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	fs := make([]finding.Finding, len(t.findings))
	for i, f := range t.findings {
		v := t.hw[f.ID]
		sw := "software: OSCS-Opt reports it"
		if v.Verdict == hwmodel.HardwareOnly {
			sw = "software: OSCS-Opt does not report it"
		}
		hw := "hardware: " + string(v.Verdict)
		if v.Reason != "" {
			hw += " (" + string(v.Reason) + ")"
		}
		if v.Detail != "" {
			hw += ": " + v.Detail
		}
		f.Evidence.Notes = append([]string{sw, hw}, f.Evidence.Notes...)
		fs[i] = f
	}
	if err := report.Text(bw, dir, fs); err != nil {
		return err
	}
	return bw.Flush()
}

// jsonLine is f as precog test -json prints it, with the hardware's
// verdict added as a last field, "hardware", and a newline.
func jsonLine(f finding.Finding, v hwmodel.HW) ([]byte, error) {
	var b bytes.Buffer
	if err := report.JSON(&b, []finding.Finding{f}); err != nil {
		return nil, err
	}
	obj := bytes.TrimSpace(b.Bytes())
	if len(obj) < 2 || obj[len(obj)-1] != '}' {
		return nil, fmt.Errorf("finding %s is not a JSON object", f.ID)
	}
	hw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	sep := ","
	if len(obj) == 2 {
		sep = ""
	}
	out := append(append(append(append([]byte{}, obj[:len(obj)-1]...), sep+`"hardware":`...), hw...), '}', '\n')
	return out, nil
}

func summarize(w io.Writer, cfg hwmodel.Config, t *tally) {
	sw, kept, only, lost := t.counts()
	fmt.Fprintf(w, "replayed %d %s, %d events in %s (%s events/s)\n", t.traces, cli.Plural(t.traces, "trace", "traces"),
		t.events, t.replay.Round(time.Microsecond), rate(t.events, t.replay))
	fmt.Fprintf(w, "OSCS-Opt: %d %s; OSCS-HW keeps %d (coverage %s), loses %d (%s), reports %d more\n",
		sw, cli.Plural(sw, "finding", "findings"), kept, percent(kept, sw), sw-kept, lossText(lost), only)
	c := cfg.Cache
	fmt.Fprintf(w, "machine: %d cores; L1 %s %d-way, L2 %s %d-way, L3 %s %d-way, %d-byte lines; AHB %d entries %d-way\n",
		c.Cores, kib(c.L1.Bytes), c.L1.Ways, kib(c.L2.Bytes), c.L2.Ways, kib(c.L3.Bytes), c.L3.Ways, c.LineBytes, cfg.AHB.Entries, cfg.AHB.Ways)
	cs, as := t.caches, t.ahbs
	fmt.Fprintf(w, "caches: %s of accesses hit the L1, %s came from DRAM; %d downgrades tagged lines shared, %d tagged lines left the chip; AHBs: %d lookups, %d hits, %d transfers, %d evictions\n",
		percent(cs.L1Hits, cs.Accesses), percent(cs.DRAM, cs.Accesses), cs.Downgrades, cs.LeavesShared, as.Lookups, as.Hits, as.Transfers, as.Evictions)
	tm := t.timing
	fmt.Fprintf(w, "estimated overhead %.3f%% of the replayed operations' cycles (an upper bound; the paper: 0.23%% of whole programs): AHB lookups %s of accesses, clock lines %s, %d context switches\n",
		100*tm.Overhead(), percent(tm.AHBLookups, tm.Accesses), percent(tm.ClockLines, tm.Accesses), tm.Switches)
	if t.wall > 0 {
		fmt.Fprintf(w, "added cycles at %g GHz: %.4f%% of the tests' %s run time\n", c.GHz, 100*wallShare(t.extra, c.GHz, t.wall), t.wall.Round(time.Millisecond))
	}
}

// wallShare is extra cycles at ghz as a fraction of wall.
func wallShare(extra int64, ghz float64, wall time.Duration) float64 {
	return float64(extra) / ghz / float64(wall.Nanoseconds())
}

func rate(n int, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	r := float64(n) / d.Seconds()
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.1fM", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.0fk", r/1e3)
	}
	return fmt.Sprintf("%.0f", r)
}

func percent(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

func kib(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MiB"
	}
	return strconv.Itoa(n>>10) + " KiB"
}

// sweepSettings are the paper's sensitivity study (§5.2) around base:
// AHB sizes at the base caches, then cache scales at the base AHB.
func sweepSettings(base hwmodel.Config) []hwmodel.Config {
	var out []hwmodel.Config
	for _, f := range []float64{0.25, 0.5} {
		c := base
		c.Cache = base.Cache.Scale(f)
		out = append(out, c)
	}
	for _, n := range []int{64, 128, 256, 512} {
		out = append(out, base.WithAHBEntries(n))
	}
	c := base
	c.Cache = base.Cache.Scale(2)
	return append(out, c)
}

// printSweep prints one line (or JSON object) per setting.
func printSweep(env *cli.Env, asJSON bool, base hwmodel.Config, ts []*tally) (int, error) {
	bw := bufio.NewWriter(env.Stdout)
	if !asJSON {
		fmt.Fprintf(bw, "%-6s %-6s %8s %6s %9s %9s %9s  %s\n", "ahb", "caches", "software", "kept", "coverage", "overhead", "of wall", "lost by reason")
	}
	any := false
	for _, t := range ts {
		sw, kept, only, lost := t.counts()
		any = any || sw+only > 0
		scale := float64(t.cfg.Cache.L1.Bytes) / float64(base.Cache.L1.Bytes)
		if asJSON {
			byReason := make(map[string]int)
			for r, n := range lost {
				byReason[string(r)] = n
			}
			b, err := json.Marshal(struct {
				AHBEntries   int            `json:"ahbEntries"`
				CacheScale   float64        `json:"cacheScale"`
				Software     int            `json:"software"`
				Kept         int            `json:"kept"`
				HardwareOnly int            `json:"hardwareOnly"`
				Lost         map[string]int `json:"lost"`
				Overhead     float64        `json:"overhead"`
				WallShare    float64        `json:"wallShare,omitempty"`
				Events       int            `json:"events"`
			}{t.cfg.AHB.Entries, scale, sw, kept, only, byReason, t.timing.Overhead(), t.wallShare(), t.events})
			if err != nil {
				return cli.ExitError, err
			}
			bw.Write(append(b, '\n'))
			continue
		}
		ofWall := "-"
		if t.wall > 0 {
			ofWall = fmt.Sprintf("%.4f%%", 100*t.wallShare())
		}
		fmt.Fprintf(bw, "%-6d %-6s %8d %6d %9s %8.3f%% %9s  %s\n", t.cfg.AHB.Entries, strconv.FormatFloat(scale, 'g', -1, 64)+"x", sw, kept, percent(kept, sw), 100*t.timing.Overhead(), ofWall, lossText(lost))
	}
	if err := bw.Flush(); err != nil {
		return cli.ExitError, err
	}
	if any {
		return cli.ExitFindings, nil
	}
	return cli.ExitOK, nil
}
