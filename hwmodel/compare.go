package hwmodel

import (
	"fmt"
	"path/filepath"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/detect/oscs"
	"github.com/precog-dev/precog/shim/trace"
)

// Verdict is what the hardware made of a finding.
type Verdict string

const (
	// Kept: OSCS-HW reports the finding software OSCS-Opt reports.
	Kept Verdict = "kept"
	// Lost: software reports it, the hardware does not (see Reason).
	Lost Verdict = "lost"
	// HardwareOnly: the hardware reports a pair software does not: its
	// history, missing some accesses, still held an older one that
	// software had replaced (oscs.Options.Hardware).
	HardwareOnly Verdict = "hardware-only"
)

// Reason is why the hardware lost a finding.
type Reason string

const (
	// ReasonNotShared: an access of the pair ran while its line was not
	// tagged shared, so the checker neither recorded nor checked it: no
	// other core had touched the line since it came on chip.
	ReasonNotShared Reason = "not-shared"
	// ReasonSameCore: as ReasonNotShared, but other goroutines had used
	// the line, on the same core: the one-bit tag cannot see that.
	ReasonSameCore Reason = "same-core"
	// ReasonTagLost: the line had been tagged, then left the chip and
	// came back without its tag.
	ReasonTagLost Reason = "tag-lost"
	// ReasonEvicted: both accesses were recorded, but the earlier one's
	// AHB entry was evicted before the later one looked it up.
	ReasonEvicted Reason = "ahb-evicted"
	// ReasonHistory: both were recorded in one entry, but its two-slot
	// history (or the flag checked at the end of the critical section)
	// no longer held the earlier one when the software's did.
	ReasonHistory Reason = "history"
)

// HW is the hardware's verdict on one finding.
type HW struct {
	Verdict Verdict `json:"verdict"`
	Reason  Reason  `json:"reason,omitempty"`
	// Detail says it in a sentence: which access, which line or entry.
	Detail string `json:"detail,omitempty"`
}

// Result is the software and hardware OSCS of one trace, compared.
type Result struct {
	// Findings are the union of software's and hardware's, sorted, each
	// with its verdict in HW (by ID).
	Findings []finding.Finding
	HW       map[string]HW
	Machine  *Machine
	// Software and Hardware are the two checkers' counts.
	Software, Hardware oscs.Stats
}

// Run replays the trace analyzed in g through machine cfg and runs OSCS
// twice on it, as software OSCS-Opt and as OSCS-HW, with the same options
// otherwise (opts.Algorithm is ignored: both are Opt).
func Run(g *hb.Graph, sites *trace.SiteTable, cfg Config, opts oscs.Options) *Result {
	opts.Algorithm, opts.Hardware = oscs.Opt, nil
	sw, sst := oscs.CheckStats(g, sites, opts)
	res := Compare(g, sites, Replay(g, cfg), sw, opts)
	res.Software = sst
	return res
}

// Compare runs OSCS-HW with the history m kept and compares its findings
// with sw, software OSCS-Opt's on the same trace with the same options.
// Result.Software is left zero.
func Compare(g *hb.Graph, sites *trace.SiteTable, m *Machine, sw []finding.Finding, opts oscs.Options) *Result {
	opts.Algorithm, opts.Hardware = oscs.Opt, m
	hw, hst := oscs.CheckStats(g, sites, opts)
	res := &Result{HW: make(map[string]HW), Machine: m, Hardware: hst}
	inHW := make(map[string]bool)
	for _, f := range hw {
		inHW[f.ID] = true
	}
	inSW := make(map[string]bool)
	for _, f := range sw {
		inSW[f.ID] = true
		if inHW[f.ID] {
			res.HW[f.ID] = HW{Verdict: Kept}
		} else {
			res.HW[f.ID] = m.explain(g, sites, f)
		}
		res.Findings = append(res.Findings, f)
	}
	for _, f := range hw {
		if !inSW[f.ID] {
			res.HW[f.ID] = HW{Verdict: HardwareOnly, Detail: "the hardware's history still held an access that software's two-slot history had replaced with one the hardware did not record"}
			res.Findings = append(res.Findings, f)
		}
	}
	res.Findings = finding.Merge(res.Findings)
	return res
}

// maxExplained bounds the pairs explain examines for one finding.
const maxExplained = 100000

// progress ranks the reasons by how far a pair got in the hardware: an
// explanation names the pair that came closest to being caught.
var progress = map[Reason]int{ReasonNotShared: 0, ReasonSameCore: 1, ReasonTagLost: 2, ReasonEvicted: 3, ReasonHistory: 4}

// explain finds why the hardware lost software finding f. It examines the
// pairs of events at f's two access sites that software could have
// reported (different goroutines, one location, a common lock, the earlier
// not happening before the later), pairing each access with the latest
// one of every other goroutine at the other site, and says what the
// hardware did with the pair that came closest to being caught.
func (m *Machine) explain(g *hb.Graph, sites *trace.SiteTable, f finding.Finding) HW {
	if len(f.Sites) < 2 {
		return HW{Verdict: Lost}
	}
	a, b := siteIDs(sites, f.Sites[0]), siteIDs(sites, f.Sites[1])
	// last[k]: per goroutine, the latest event at side k so far.
	last := [2]map[int]int{{}, {}}
	best, found, n := HW{}, false, 0
	for i := range g.Events {
		ev := &g.Events[i]
		if ev.Kind != trace.EvRead && ev.Kind != trace.EvWrite {
			continue
		}
		for side, ids := range [2]map[uint32]bool{a, b} {
			if !ids[ev.Site] {
				continue
			}
			gi := g.Goroutine(i)
			for pg, p := range last[1-side] {
				if pg == gi || g.Loc(p) != g.Loc(i) || !g.CommonLock(p, i) || g.HappensBefore(p, i) {
					continue
				}
				n++
				if r := m.pairReason(g, sites, p, i); !found || progress[r.Reason] > progress[best.Reason] ||
					progress[r.Reason] == progress[best.Reason] && r.Detail < best.Detail {
					best, found = r, true
				}
			}
			last[side][gi] = i
		}
		if n >= maxExplained || found && best.Reason == ReasonHistory {
			break
		}
	}
	if !found {
		return HW{Verdict: Lost, Reason: ReasonHistory, Detail: "no pair of the finding's sites was found again in the trace"}
	}
	return best
}

func (m *Machine) pairReason(g *hb.Graph, sites *trace.SiteTable, p, i int) HW {
	for _, k := range []struct {
		ev   int
		role string
	}{{i, "later"}, {p, "earlier"}} {
		st := m.status[k.ev]
		if st == Recorded {
			continue
		}
		what := fmt.Sprintf("the %s access (%s, on core %d) was not recorded: ", k.role, where(sites, g.Events[k.ev].Site), m.core[k.ev])
		switch st {
		case SameCore:
			return HW{Verdict: Lost, Reason: ReasonSameCore, Detail: what + "the goroutines that used its line ran on one core, and the one-bit tag cannot tell them apart"}
		case TagLost:
			return HW{Verdict: Lost, Reason: ReasonTagLost, Detail: what + "its line had been tagged shared, but left the chip and came back untagged"}
		default:
			return HW{Verdict: Lost, Reason: ReasonNotShared, Detail: what + "its line was not tagged shared yet: no other core had touched it since it came on chip"}
		}
	}
	gp, gi := m.gens[p], m.gens[i]
	if gp != gi || !m.ahb.Alive(gp, i) {
		d, _ := m.ahb.DiedAt(gp)
		return HW{Verdict: Lost, Reason: ReasonEvicted, Detail: fmt.Sprintf("the earlier access's AHB entry (%s) was evicted %d events later, before the later access (%s) looked it up; the hardware keeps no history behind the AHB",
			where(sites, g.Events[p].Site), d-p, where(sites, g.Events[i].Site))}
	}
	return HW{Verdict: Lost, Reason: ReasonHistory, Detail: "both accesses were recorded in one AHB entry, but its history differed from software's: its two reads and two writes no longer held the earlier one, or an access it missed left its read-write flag in doubt"}
}

func where(sites *trace.SiteTable, id uint32) string {
	s, ok := sites.Lookup(id)
	if !ok {
		return fmt.Sprintf("site %d", id)
	}
	return fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line)
}

// siteIDs returns the IDs of the read or write sites at s's position.
func siteIDs(sites *trace.SiteTable, s finding.Site) map[uint32]bool {
	ids := make(map[uint32]bool)
	if sites == nil {
		return ids
	}
	for _, t := range sites.Sites {
		if t.File == s.File && t.Line == s.Line && t.Col == s.Col && t.Kind == s.Role {
			ids[t.ID] = true
		}
	}
	return ids
}
