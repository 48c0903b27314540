package conmem

import (
	"fmt"

	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/shim/trace"
)

// closed reports Con-Dangling bugs in their Go form (§4.4): a channel
// released by close on one goroutine and used afterwards by another, a
// send (send on closed channel) or a second close (close of closed
// channel). Only order synchronization prevents it: the use must happen
// before the close. Locks are not consulted.
func (c *checker) closed() {
	for _, ch := range c.chans {
		list, ok := c.instances(ch)
		if !ok {
			continue
		}
		for _, cl := range list {
			if c.g.Events[cl].Kind != trace.EvChanClose {
				continue
			}
			for _, u := range list {
				if u == cl || c.g.Goroutine(u) == c.g.Goroutine(cl) {
					continue
				}
				isClose := c.g.Events[u].Kind == trace.EvChanClose
				if isClose && u < cl {
					continue // the pair is seen from the other close
				}
				use := finding.RoleSend
				if isClose {
					use = finding.RoleClose
				}
				roles := []role{{ev: cl, role: finding.RoleClose}, {ev: u, role: use}}
				if c.reported(finding.ConClosed, roles) {
					continue
				}
				if !isClose && c.g.HappensBefore(u, cl) {
					continue
				}
				if isClose {
					c.report(finding.ConClosed,
						fmt.Sprintf("%s closed in %s may be closed again concurrently by %s (close of closed channel)",
							c.expr(cl), c.fn(cl), c.fn(u)), roles,
						"two goroutines close the channel")
					continue
				}
				c.report(finding.ConClosed,
					fmt.Sprintf("%s closed in %s may still be sent on by %s (send on closed channel); the close should wait for every sender",
						c.expr(cl), c.fn(cl), c.fn(u)), roles,
					"the send does not happen before the close")
			}
		}
	}
}
