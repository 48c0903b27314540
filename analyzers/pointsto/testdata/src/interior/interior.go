// Package interior: a pointer to a field or element points into its
// object at that field, so pointers to two fields of one object do not
// alias, while pointers to one field of one object do.
package interior

func alias(p, q any) {}

type buffer struct {
	buf []byte
	len int
}

type conn struct {
	header   buffer
	incoming buffer
	slots    [4]buffer
}

func New() *conn { return &conn{} }

func Fields() {
	a, b := New(), New()
	alias(&a.header, &a.incoming)         // want `^disjoint$`
	alias(&a.header, &a.header)           // want `^may alias$`
	alias(&a.header, &b.header)           // want `^disjoint$`
	alias(&a.header.len, &a.incoming.len) // want `^disjoint$`
	alias(&a.header.len, &a.header.len)   // want `^may alias$`
	alias(&a.slots[0], &a.slots[1])       // want `^may alias$`
	alias(&a.slots[0], &a.header)         // want `^disjoint$`
	h := &a.header
	alias(h, &a.header) // want `^may alias$`
}
