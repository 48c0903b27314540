package main

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/precog-dev/precog/shim/trace"
)

// lookahead streams the trace at path in the global order and measures
// how far ahead hb's look-ahead passes look: for each match that a walk
// over a stream would have to wait for, the distance in events from the
// event that needs it to the event that supplies it. These are the waits
// a bounded window of events would have to cover for hb online to give the
// clocks it gives over the whole slice (see RESULTS, "What step 2 needs"):
//
//   - send: a send's completion (at its goroutine's next event) acquires
//     the receive it waited for, the (k-cap)-th of its channel; the
//     receive may be recorded after the sender's next event;
//   - recv: a receive acquires its send, the k-th; a select's send case is
//     recorded after the send completed, so after the receive;
//   - late store: an atomic load that read a store recorded after it;
//   - cond: a Cond.Wait's return releases, at its goroutine's previous
//     event, the mutex Wait unlocked: the distance from that event to the
//     return is the wait.
//
// It keeps what a streaming matcher would keep: the unmatched operations.
func lookahead(path, sitesPath string) error {
	var sites *trace.SiteTable
	if sitesPath != "" {
		var err error
		if sites, err = trace.LoadSites(sitesPath); err != nil {
			return err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	o, err := trace.NewOrderedReader(f, fi.Size())
	if err != nil {
		return err
	}
	type channel struct {
		cap          int // -1: make not recorded
		sends, recvs int // counted so far
		// unmatched sends and receives by their number k: the event
		// index, and for a send its goroutine's next event (-1 until
		// seen).
		sendAt, recvAt map[int]int
	}
	chans := map[uint64]*channel{}
	get := func(addr uint64) *channel {
		c := chans[addr]
		if c == nil {
			c = &channel{cap: -1, sendAt: map[int]int{}, recvAt: map[int]int{}}
			chans[addr] = c
		}
		return c
	}
	// waitingNext: per goroutine, the sends whose completion its next
	// event acquires (channel, receive number).
	type pend struct {
		c *channel
		k int
	}
	waitingNext := map[uint64][]pend{}
	// completions waiting for their receive: (channel, k) -> index of the
	// event that acquires it.
	type ck struct {
		c *channel
		k int
	}
	needRecv := map[ck]int{}
	dists := map[string][]int{}
	lastOf := map[uint64]int{} // goroutine -> index of its last event
	lastStore := map[uint64]uint64{}
	type load struct {
		i       int
		g       uint64
		addr, v uint64
	}
	var pendingLoads []load
	n := 0
	for i := 0; ; i++ {
		ev, err := o.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		n++
		// The sender's next event: its completions are needed now.
		if ps := waitingNext[ev.Goroutine]; len(ps) > 0 {
			for _, p := range ps {
				if at, ok := p.c.recvAt[p.k]; ok {
					_ = at
					dists["send"] = append(dists["send"], 0)
				} else if p.k < p.c.recvs {
					dists["send"] = append(dists["send"], 0) // received and matched already
				} else {
					needRecv[ck{p.c, p.k}] = i
				}
			}
			delete(waitingNext, ev.Goroutine)
		}
		switch ev.Kind {
		case trace.EvChanMake:
			c := &channel{cap: int(ev.Value), sendAt: map[int]int{}, recvAt: map[int]int{}}
			chans[ev.Addr] = c
		case trace.EvChanSend, trace.EvChanRecv, trace.EvSelect:
			send := ev.Kind == trace.EvChanSend
			if ev.Kind == trace.EvSelect {
				if ev.Arg < 0 || ev.Addr == 0 {
					break
				}
				if s, ok := sites.Lookup(ev.Site); ok && int(ev.Arg) < len(s.Cases) && s.Cases[ev.Arg] == 's' {
					send = true
				}
			}
			c := get(ev.Addr)
			if send {
				k := c.sends
				c.sends++
				if at, ok := c.recvAt[k]; ok {
					// The receive came first: it needed this send.
					dists["recv"] = append(dists["recv"], i-at)
					delete(c.recvAt, k)
				} else {
					c.sendAt[k] = i
				}
				if c.cap >= 0 && k-c.cap >= 0 {
					if ev.Kind == trace.EvSelect {
						// acquired at once: needs the receive now
						if k-c.cap >= c.recvs {
							needRecv[ck{c, k - c.cap}] = i
						} else {
							dists["send"] = append(dists["send"], 0)
						}
					} else {
						waitingNext[ev.Goroutine] = append(waitingNext[ev.Goroutine], pend{c, k - c.cap})
					}
				}
			} else if ev.Value != 0 || ev.Kind == trace.EvSelect {
				k := c.recvs
				c.recvs++
				if _, ok := c.sendAt[k]; ok {
					delete(c.sendAt, k)
				} else {
					c.recvAt[k] = i
				}
				if at, ok := needRecv[ck{c, k}]; ok {
					dists["send"] = append(dists["send"], i-at)
					delete(needRecv, ck{c, k})
				}
			}
		case trace.EvCondWait:
			if p, ok := lastOf[ev.Goroutine]; ok {
				dists["cond"] = append(dists["cond"], i-p)
			}
		case trace.EvAtomicStore:
			lastStore[ev.Addr] = ev.Value
			for k := 0; k < len(pendingLoads); {
				l := pendingLoads[k]
				if l.addr == ev.Addr && l.v == ev.Value && l.g != ev.Goroutine {
					dists["late store"] = append(dists["late store"], i-l.i)
					pendingLoads = slices.Delete(pendingLoads, k, k+1)
					continue
				}
				k++
			}
		case trace.EvAtomicLoad:
			if v, ok := lastStore[ev.Addr]; (ok && v != ev.Value) || (!ok && ev.Value != 0) {
				pendingLoads = append(pendingLoads, load{i, ev.Goroutine, ev.Addr, ev.Value})
			}
			if len(pendingLoads) > 64 {
				pendingLoads = pendingLoads[len(pendingLoads)-64:]
			}
		}
		lastOf[ev.Goroutine] = i
	}
	fmt.Printf("%s: %d events\n", path, n)
	for _, what := range []string{"send", "recv", "late store", "cond"} {
		d := dists[what]
		slices.Sort(d)
		if len(d) == 0 {
			fmt.Printf("  %-10s none\n", what)
			continue
		}
		over := func(w int) int {
			k, _ := slices.BinarySearch(d, w+1)
			return len(d) - k
		}
		fmt.Printf("  %-10s %d matches: waits of 0 events %d, median %d, p99 %d, max %d; over 1e3 %d, over 1e4 %d, over 1e5 %d, over 1e6 %d\n",
			what, len(d), len(d)-over(0), d[len(d)/2], d[len(d)*99/100], d[len(d)-1], over(1e3), over(1e4), over(1e5), over(1e6))
	}
	fmt.Printf("  unmatched at the end: %d completions waiting for a receive\n", len(needRecv))
	return nil
}
