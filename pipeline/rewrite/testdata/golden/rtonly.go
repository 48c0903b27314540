package p

import "sync/atomic"

type counter struct{ n atomic.Int64 }

func (c *counter) inc() int64 { return c.n.Add(1) }
