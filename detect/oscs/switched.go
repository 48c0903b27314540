package oscs

// switched reports whether the later access of the pair, cur, ran only
// because the earlier access's critical section changed what a check of
// cur's own section found: a read of cur's section of the common lock,
// before cur, that switches cur's branch (trace.Site.Switches: the
// condition is the value read, its negation or its comparison with nil),
// found the value that p's section left in its location, which differs
// from the location's value before that section (foundChanged, with no
// update in place between). Had cur's section run first, the check would
// have found the value from before p's section and taken the other edge:
// cur would not have run, so the pair meets in the trace's order only.
// dns's ShutdownContext reads srv.conns past `if !srv.started { return
// }`, and the section that made the map set started. The check's own
// pair with the flag's write is another pair, which this one does not
// hide (Fig. 4's flag checked before it is set).
func (c *checker) switched(p, cur rec) bool {
	if c.sites == nil || p.ev >= cur.ev {
		return false
	}
	s, ok := c.sites.Lookup(c.g.Events[cur.ev].Site)
	if !ok || s.Switches == "" {
		return false
	}
	lock, ok := c.commonLock(int(p.ev), int(cur.ev))
	if !ok {
		return false
	}
	kp, kc := c.sectionAt(p, lock), c.sectionAt(cur, lock)
	if kp < 0 || kc < 0 {
		return false
	}
	return c.guardReads(kc, int(cur.ev), s.SwitchedBy, func(i int) bool { return c.foundChanged(i, kp, 0) })
}
