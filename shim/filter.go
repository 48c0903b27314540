package shim

import (
	"os"
	"strconv"
	"strings"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

// accessOn, when not nil, holds one bit per site id: the access sites to
// record. It, sections, funcsOff and mapsOff are written only during package
// initialization, so the recording fast path reads them without
// synchronization; with no filter set, an access costs one more load and a
// predictable branch.
//
// sections is set with a list of sites (CFP's guided runs, not its cheap
// run's "none"): a goroutine then records every access it makes while it
// holds a lock, listed or not. The detectors read a critical section whole:
// OSCS asks whether a section changed a value, whether a check in it
// switched, whether it is one whole operation (detect/oscs), and con-uninit
// whether the check that let a read run found an init's section changed
// (detect/conmem). A guided run lists only the functions of the pairs its
// test adds, so a section that calls into a listed function (dns's
// ActivateAndServe, whose srv.started flag is set in the section where the
// listed init makes srv.conns) lost its other accesses, and each of those
// rules kept a pair the whole section shows false.
var (
	accessOn []uint64
	sections bool
	funcsOff bool
	mapsOff  bool
)

// readFilter sets accessOn, funcsOff and mapsOff from the environment
// (plan.AccessesEnv, plan.FuncsEnv and plan.MapsEnv).
func readFilter() error {
	funcsOff = os.Getenv(plan.FuncsEnv) == "0"
	mapsOff = os.Getenv(plan.MapsEnv) == "0"
	os.Unsetenv(plan.MapsEnv)
	spec := os.Getenv(plan.AccessesEnv)
	os.Unsetenv(plan.AccessesEnv)
	os.Unsetenv(plan.FuncsEnv)
	sections = false
	switch spec {
	case "":
		return nil
	case "none":
		accessOn = []uint64{}
		return nil
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return err
	}
	on := []uint64{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		id, err := strconv.ParseUint(line, 10, 32)
		if err != nil {
			return err
		}
		for int(id>>6) >= len(on) {
			on = append(on, 0)
		}
		on[id>>6] |= 1 << (id & 63)
	}
	accessOn, sections = on, true
	return nil
}

// filtered reports whether the access at site is left out by the list,
// whoever makes it.
func filtered(site uint32) bool {
	return accessOn != nil && (int(site>>6) >= len(accessOn) || accessOn[site>>6]&(1<<(site&63)) == 0)
}

// skipped reports whether the running goroutine leaves the access at site
// out: filtered, and not inside a critical section (sections).
func skipped(site uint32) bool {
	return filtered(site) && cur().held == 0
}

// skips is skipped for g, the running goroutine's state.
func (g *gstate) skips(site uint32) bool {
	return filtered(site) && g.held == 0
}

// countHeld follows the locks g holds from the lock events it records
// (sections). An unlock by another goroutine than the one that locked
// leaves the locker's count up: it then records more than it must, never
// less.
func (g *gstate) countHeld(k trace.Kind, arg uint64) {
	switch k {
	case trace.EvLock, trace.EvRLock:
		g.held++
	case trace.EvTryLock:
		g.held += uint32(arg) // 1 if it acquired
	case trace.EvUnlock, trace.EvRUnlock:
		if g.held > 0 {
			g.held--
		}
	}
}
