// Package checkedlen: an index read once from a location another goroutine
// writes, then compared with the slice's length before it is used (pion/dtls's
// `for len(s) <= int(epoch) { s = append(s, 0) }; s[epoch]`). The value
// indexed is the value checked, so the write cannot put the index out of
// range: silent. Reported beside them: a signed index (bounded from above
// only), the index read again after the check, a check that a path to the
// index goes around, a check against another slice's length, the
// comparison's out-of-range side, and a grown slice that another goroutine
// replaces unlocked between the check and the index.
package checkedlen

import "sync"

type Conn struct {
	mu     sync.Mutex
	seqs   []uint64
	other  []uint64
	loose  []uint64
	epoch  uint16
	signed int
}

// Run writes the positions on another goroutine, unlocked, and replaces
// loose there, unlocked too, while the methods index.
func (c *Conn) Run() {
	go func() {
		c.epoch++
		c.signed++
		c.loose = nil
	}()
	c.Grow()
	c.Checked()
	c.CheckedGreater()
	c.Signed()
	c.ReadAgain()
	c.GoneAround()
	c.OtherSlice()
	c.WrongSide()
	c.GrowLoose()
}

func (c *Conn) Grow() {
	c.mu.Lock()
	defer c.mu.Unlock()
	epoch := c.epoch
	for len(c.seqs) <= int(epoch) {
		c.seqs = append(c.seqs, 0)
	}
	c.seqs[epoch]++
}

func (c *Conn) Checked() {
	c.mu.Lock()
	defer c.mu.Unlock()
	seqs := c.seqs
	if e := c.epoch; int(e) < len(seqs) {
		seqs[e]++
	}
}

func (c *Conn) CheckedGreater() {
	c.mu.Lock()
	defer c.mu.Unlock()
	seqs := c.seqs
	e := uint(c.epoch)
	if uint(len(seqs)) > e {
		seqs[e]++
	}
}

func (c *Conn) Signed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	seqs := c.seqs
	if i := c.signed; i < len(seqs) {
		seqs[i]++ // want `may be out of range: c.signed is written concurrently`
	}
}

func (c *Conn) ReadAgain() {
	c.mu.Lock()
	defer c.mu.Unlock()
	seqs := c.seqs
	if int(c.epoch) < len(seqs) {
		seqs[c.epoch]++ // want `may be out of range: c.epoch is written concurrently`
	}
}

func (c *Conn) GoneAround() {
	c.mu.Lock()
	defer c.mu.Unlock()
	seqs := c.seqs
	e := c.epoch
	n := 0
	if int(e) < len(seqs) {
		n++
	}
	seqs[e] += uint64(n) // want `may be out of range: c.epoch is written concurrently`
}

func (c *Conn) OtherSlice() {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.epoch
	if int(e) < len(c.other) {
		c.seqs[e]++ // want `may be out of range: c.epoch is written concurrently`
	}
}

func (c *Conn) WrongSide() {
	c.mu.Lock()
	defer c.mu.Unlock()
	seqs := c.seqs
	if e := c.epoch; int(e) >= len(seqs) {
		seqs[e]++ // want `may be out of range: c.epoch is written concurrently`
	}
}

func (c *Conn) GrowLoose() {
	c.mu.Lock()
	defer c.mu.Unlock()
	epoch := c.epoch
	for len(c.loose) <= int(epoch) {
		c.loose = append(c.loose, 0)
	}
	c.loose[epoch]++ // want `may be out of range: c.loose is replaced concurrently`
}

// kindAt is the position of the kind byte in a packet.
const kindAt uint8 = 1

// ConstIndex indexes the slice re-read after its length was checked with
// an unsigned constant: nothing another goroutine writes moves it (the
// check once crashed on a constant, which no instruction uses).
func (c *Conn) ConstIndex() uint64 {
	if len(c.seqs) > int(kindAt) {
		return c.seqs[kindAt]
	}
	return 0
}
