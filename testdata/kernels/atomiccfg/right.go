package atomiccfg

// AddrOnce is RIGHT: one load, checked and used as a local.
func (c *Client) AddrOnce() string {
	if cfg := c.cfg.Load(); cfg != nil {
		return cfg.Addr
	}
	return ""
}
