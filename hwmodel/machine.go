package hwmodel

import (
	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/hwmodel/ahb"
	"github.com/precog-dev/precog/hwmodel/cache"
	"github.com/precog-dev/precog/shim/trace"
)

// Status is what the hardware did with a read or write inside a critical
// section.
type Status uint8

const (
	// NotChecked: not a read or write of a variable inside a critical
	// section (maps and atomics are not OSCS data, see detect/oscs).
	NotChecked Status = iota
	// Recorded: the line was tagged shared; the AHB was looked up and
	// updated.
	Recorded
	// NotShared: the line was not tagged: since it came on chip, no other
	// core's copy of it was downgraded.
	NotShared
	// SameCore: not tagged, although another goroutine used the line
	// since it came on chip: they ran on the same core, which the one-bit
	// tag cannot tell apart (§4.1).
	SameCore
	// TagLost: not tagged, although it had been: the line left the chip
	// and came back without its tag.
	TagLost
)

func (s Status) String() string {
	return [...]string{"not checked", "recorded", "not shared", "same core", "tag lost"}[s]
}

// A Machine is one replay of a trace: what the hardware saw at each event.
// It implements oscs.Hardware, so that oscs.Check with it is OSCS-HW.
type Machine struct {
	g      *hb.Graph
	status []Status
	gens   map[int]uint64 // recorded access -> AHB generation
	core   []int8         // per event: its core
	ahb    *ahb.Buffers
	Timing Timing
	Cache  cache.Stats
	AHB    ahb.Stats
}

// lineUse is what the model (not the hardware) remembers of a line, to say
// why an access was not recorded.
type lineUse struct {
	g, core int
	multiG  bool // several goroutines since it came on chip
	multiC  bool // on several cores
	tagLost bool // it left the chip tagged and has not been tagged since
}

// Replay runs the events of g through the machine cfg, which must be
// valid. It does not run OSCS: oscs.Check(g, sites, oscs.Options{Hardware:
// m}) does, with the history the machine kept.
func Replay(g *hb.Graph, cfg Config) *Machine {
	m := &Machine{
		g:      g,
		status: make([]Status, len(g.Events)),
		gens:   make(map[int]uint64),
		core:   make([]int8, len(g.Events)),
		ahb:    ahb.New(cfg.AHB, cfg.Cache.Cores),
	}
	h := cache.New(cfg.Cache)
	lines := make(map[uint64]*lineUse)
	h.OnLeave = func(line uint64, shared bool) {
		if u := lines[line]; u != nil {
			*u = lineUse{g: -1, core: -1, tagLost: shared || u.tagLost}
		}
	}
	sched := newScheduler(cfg.Cache.Cores, len(g.Goroutines))
	objs := make(map[uint64]int) // ordering object -> clock region
	goroutines := 0              // started so far: the clocks' length
	clockBytes := func() int { return max(1, min(goroutines, cfg.ClockComponents)) * cfg.ClockBytes }
	t := &m.Timing
	for i := range g.Events {
		ev := &g.Events[i]
		gi := g.Goroutine(i)
		if ev.Kind == trace.EvBegin {
			goroutines++
		}
		core, from := sched.place(gi, i)
		m.core[i] = int8(core)
		t.Events++
		t.Base++
		if from >= 0 {
			t.Switches++
			// Save the previous goroutine's clock, load this one's.
			c1, n1 := clockTraffic(h, core, regionAddr(threadClocks, from), clockBytes(), cfg.Cache.LineBytes, false, true)
			c2, n2 := clockTraffic(h, core, regionAddr(threadClocks, gi), clockBytes(), cfg.Cache.LineBytes, true, false)
			t.SwitchCycles += int64(c1 + c2)
			t.ClockLines += n1 + n2
		}
		if addr, write, ok := memOp(ev); ok {
			line := h.Line(addr)
			u := lines[line]
			if u == nil && cfg.InitByParent {
				// The line's first access in the trace: its object was
				// made by the goroutine that started this one, on its
				// core, with stores the trace does not hold.
				if p := g.Goroutines[gi].Parent; p >= 0 {
					if pc := sched.last[p]; pc >= 0 && pc != core {
						r := h.Access(pc, addr, true)
						t.Accesses++
						t.Base += int64(r.Cycles)
						u = &lineUse{g: p, core: pc}
						lines[line] = u
					}
				}
			}
			r := h.Access(core, addr, write)
			t.Accesses++
			t.Base += int64(r.Cycles)
			if u == nil {
				u = &lineUse{g: -1, core: -1}
				lines[line] = u
			}
			if r.FromDRAM {
				*u = lineUse{g: -1, core: -1, tagLost: u.tagLost}
			}
			if r.Shared {
				u.tagLost = false
			}
			if u.g >= 0 && u.g != gi {
				u.multiG = true
			}
			if u.core >= 0 && u.core != core {
				u.multiC = true
			}
			u.g, u.core = gi, core
			if (ev.Kind == trace.EvRead || ev.Kind == trace.EvWrite) && len(g.Locks(i)) > 0 {
				switch {
				case r.Shared:
					m.status[i] = Recorded
					a := m.ahb.Access(core, addr, i)
					m.gens[i] = a.Gen
					t.AHBLookups++
					t.AHBCycles += int64(a.Cycles)
				case u.tagLost:
					m.status[i] = TagLost
				case u.multiG && !u.multiC:
					m.status[i] = SameCore
				default:
					m.status[i] = NotShared
				}
			}
		}
		if acq, rel := orderKind(ev.Kind); acq || rel {
			obj := ev.Addr
			if ev.Kind == trace.EvFork || ev.Kind == trace.EvBegin || ev.Kind == trace.EvEnd {
				obj = 1<<63 | ev.Goroutine // the goroutine itself orders its start and end
			}
			k, ok := objs[obj]
			if !ok {
				k = len(objs)
				objs[obj] = k
			}
			c, n := clockTraffic(h, core, regionAddr(objClocks, k), clockBytes(), cfg.Cache.LineBytes, true, rel)
			t.ClockCycles += int64(c)
			t.ClockLines += n
		}
		sched.after(gi, ev)
	}
	m.Cache = h.Stats
	m.AHB = m.ahb.Stats
	return m
}

// Seen implements oscs.Hardware.
func (m *Machine) Seen(i int) (uint64, bool) {
	if m.status[i] != Recorded {
		return 0, false
	}
	return m.gens[i], true
}

// Alive implements oscs.Hardware.
func (m *Machine) Alive(gen uint64, i int) bool { return m.ahb.Alive(gen, i) }

// Status returns what the hardware did with event i.
func (m *Machine) Status(i int) Status { return m.status[i] }

// Core returns the core event i ran on.
func (m *Machine) Core(i int) int { return int(m.core[i]) }
