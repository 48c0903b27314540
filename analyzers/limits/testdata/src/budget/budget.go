package budget // want `call graph: \d+ SSA instructions, more than the 1 VTA may refine` `points-to analysis: stopped after 1 facts`

var p *int

func Set() { go func() { x := 1; p = &x }() }
