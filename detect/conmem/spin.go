package conmem

import "github.com/precog-dev/precog/detect/hb"

// spinEdges infers the order edges of spin loops (§4.6).
func (c *checker) spinEdges() []hb.Edge {
	return nil
}
