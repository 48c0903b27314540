package shim

import (
	"os"
	"strconv"
	"strings"

	"github.com/precog-dev/precog/shim/plan"
)

// accessOn, when not nil, holds one bit per site id: the access sites to
// record. It, funcsOff and mapsOff are written only during package initialization,
// so the recording fast path reads them without synchronization; with no
// filter set, an access costs one more load and a predictable branch.
var (
	accessOn []uint64
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
	accessOn = on
	return nil
}

// filtered reports whether the access at site is not to be recorded.
func filtered(site uint32) bool {
	return accessOn != nil && (int(site>>6) >= len(accessOn) || accessOn[site>>6]&(1<<(site&63)) == 0)
}
