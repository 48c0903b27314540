package trace

// Logical goroutine ids, as the shim assigns them (its state.go says when
// each applies): a reader that knows a goroutine's parent, the go
// statement's site and how many times the parent ran it before can compute
// the id it gets, in a build whose site ids differ too (precog explain
// maps a reproducer's goroutines into its own build so).

// ChildID is the id of the goroutine that parent starts at its n-th
// (from 0) execution of the go statement or task at site.
func ChildID(parent uint64, site uint32, n uint64) uint64 {
	return nonzero(mix(mix(parent^0x70726563) ^ uint64(site)<<32 ^ n))
}

// TestID is the id of the goroutine of the run-th (from 0) run in the
// process of the test with full name name.
func TestID(name string, run uint64) uint64 {
	h := uint64(14695981039346656037) // FNV-1a
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return nonzero(mix(mix(h^0x74657374) + run))
}

// AdoptedID is the id of the n-th goroutine that no instrumented go
// statement started to reach the shim.
func AdoptedID(n uint64) uint64 { return nonzero(mix(n ^ 0x61646f70)) }

// mix is the splitmix64 finalizer: a bijection that spreads every input bit.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// nonzero keeps the hashed ids off the main goroutine's (0) and NoParent.
func nonzero(id uint64) uint64 {
	if id == 0 || id == NoParent {
		return 1
	}
	return id
}
