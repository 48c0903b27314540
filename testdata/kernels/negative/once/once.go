// Package once is a negative control: shared state is initialized inside
// sync.Once (or sync.OnceValue) and every reader passes through the same Once
// first. No check may report anything here.
//
// Why each shape is safe:
//   - con-uninit: Run starts the encoders before it calls c.init itself, but
//     every goroutine calls c.init (initOnce.Do) before reading c.table,
//     c.names or c.stats, and Do returns only after the initializing
//     function has.
//   - con-null: c.stats is never nil after Do; defaultCodec (OnceValue)
//     never returns nil.
//   - con-index: c.table has 256 entries and is indexed by a byte.
//   - con-map: c.names is written only inside Do and read after it.
package once

import (
	"strings"
	"sync"
	"sync/atomic"
)

type stats struct {
	encoded atomic.Int64
}

// Codec is a byte substitution codec with a lazily built table.
type Codec struct {
	key      string
	initOnce sync.Once
	table    []byte
	names    map[string]int
	stats    *stats
}

func (c *Codec) init() {
	c.initOnce.Do(func() {
		c.table = make([]byte, 256)
		for i := range c.table {
			c.table[i] = byte(i) ^ c.key[i%len(c.key)]
		}
		c.names = map[string]int{"identity": 0, "xor": 1}
		c.stats = &stats{}
	})
}

// Encode substitutes every byte of s.
func (c *Codec) Encode(s string) []byte {
	c.init()
	out := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = c.table[s[i]]
	}
	c.stats.encoded.Add(int64(len(s)))
	return out
}

// Mode returns the numeric mode called name.
func (c *Codec) Mode(name string) int {
	c.init()
	return c.names[strings.ToLower(name)]
}

var defaultCodec = sync.OnceValue(func() *Codec {
	c := &Codec{key: "precog"}
	c.init()
	return c
})

var loadAliases = sync.OnceValues(func() (map[string]string, error) {
	return map[string]string{"x": "xor", "id": "identity"}, nil
})

// Run encodes msgs on one goroutine each.
func Run(key string, msgs []string) int64 {
	c := &Codec{key: key}
	var wg sync.WaitGroup
	for _, m := range msgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Encode(m)
			defaultCodec().Encode(m)
			if aliases, err := loadAliases(); err == nil {
				c.Mode(aliases[m])
			}
		}()
	}
	c.init()
	c.Mode("xor")
	wg.Wait()
	return c.stats.encoded.Load() + defaultCodec().stats.encoded.Load()
}
