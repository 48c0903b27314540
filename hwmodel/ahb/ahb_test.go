package ahb

import "testing"

// small is two cores with one set of two ways each.
func small() Config {
	return Config{Entries: 2, Ways: 2, Latency: 3, WordBytes: 4, TransferLatency: 40}
}

func TestReplacementIsLRU(t *testing.T) {
	b := New(small(), 1)
	a := b.Access(0, 0x10, 1)
	c := b.Access(0, 0x20, 2)
	if a.Hit || c.Hit || a.Gen == c.Gen {
		t.Fatalf("first accesses: %+v %+v; want two misses with distinct generations", a, c)
	}
	if r := b.Access(0, 0x10, 3); !r.Hit || r.Gen != a.Gen {
		t.Fatalf("0x10 again: %+v; want a hit of generation %d", r, a.Gen)
	}
	// 0x20 is now least recently used: a third location evicts it.
	r := b.Access(0, 0x30, 4)
	if r.Hit || r.Evicted != c.Gen {
		t.Fatalf("0x30: %+v; want a miss evicting 0x20's generation %d", r, c.Gen)
	}
	if !b.Alive(c.Gen, 3) || b.Alive(c.Gen, 4) || b.Alive(c.Gen, 9) {
		t.Error("0x20's generation: want alive before event 4 and dead from it")
	}
	if !b.Alive(a.Gen, 9) {
		t.Error("0x10 was recently used and must still be there")
	}
	// 0x20 comes back with a new generation: its old history is gone.
	if r := b.Access(0, 0x20, 5); r.Hit || r.Gen == c.Gen {
		t.Errorf("0x20 after eviction: %+v; want a miss with a new generation", r)
	}
	if b.Stats.Evictions != 2 || b.Stats.Misses != 4 || b.Stats.Hits != 1 {
		t.Errorf("stats %+v", b.Stats)
	}
}

func TestTransferKeepsHistory(t *testing.T) {
	b := New(small(), 2)
	a := b.Access(0, 0x10, 1)
	r := b.Access(1, 0x10, 2)
	if !r.Transfer || r.Gen != a.Gen || r.Cycles != 43 {
		t.Fatalf("core 1 takes 0x10 over: %+v; want a transfer of generation %d in 43 cycles", r, a.Gen)
	}
	// Core 0's copy is gone: filling core 0's set must not evict it.
	b.Access(0, 0x20, 3)
	b.Access(0, 0x30, 4)
	b.Access(0, 0x40, 5)
	if !b.Alive(a.Gen, 6) {
		t.Error("0x10 lives in core 1's buffer; core 0's evictions must not touch it")
	}
	if r := b.Access(1, 0x10, 7); !r.Hit {
		t.Errorf("core 1 again: %+v; want a hit", r)
	}
}

func TestSetsByWord(t *testing.T) {
	cfg := Config{Entries: 4, Ways: 1, Latency: 3, WordBytes: 4, TransferLatency: 0}
	b := New(cfg, 1)
	// Two bytes of one word share a set; in a direct-mapped buffer the
	// second evicts the first.
	x := b.Access(0, 0x100, 1)
	if r := b.Access(0, 0x101, 2); r.Evicted != x.Gen {
		t.Errorf("0x101: %+v; want it to evict 0x100 (same word, same set)", r)
	}
	// The next word maps to the next set.
	if r := b.Access(0, 0x104, 3); r.Evicted != 0 {
		t.Errorf("0x104: %+v; want no eviction (another set)", r)
	}
}

func TestValidate(t *testing.T) {
	for _, n := range []int{64, 128, 256, 512} {
		c := Default()
		c.Entries = n
		if err := c.Validate(); err != nil {
			t.Errorf("%d entries: %v", n, err)
		}
	}
	c := Default()
	c.Entries = 4
	c.Ways = 8
	if c.Validate() == nil {
		t.Error("4 entries in 8 ways accepted")
	}
}
