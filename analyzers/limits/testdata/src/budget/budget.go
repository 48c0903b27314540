package budget // want `^package budget: analysis budget exhausted after 1 units of work \(-limits.work\); skipped: call graph: \d+ SSA instructions, more than the 1 VTA may refine; using the coarser CHA call graph; points-to analysis stopped after 1 units of work \(-limits.work\); precog's checks are silent on this package$`

var p *int

func Set() { go func() { x := 1; p = &x }() }
