package explore

func alias(p, q any) {}

type conn struct{ n int }

func Copy() {
	x := &conn{}
	src := []*conn{x}
	dst := make([]*conn, 1)
	copy(dst, src)
	alias(x, dst[0])
}

func Array() {
	x := &conn{}
	var arr [2]*conn
	arr[0] = x
	b := arr
	alias(x, b[0])
}

type shards struct{ s [4]*conn }

func Field(h *shards) {
	x := &conn{}
	h.s[0] = x
	snap := h.s
	alias(x, snap[0])
	for _, c := range h.s {
		alias(x, c)
	}
}

func id[T any](v T) T { return v }

func Generic() {
	x := &conn{}
	alias(x, id(x))
}

func Recover() {
	x := &conn{}
	defer func() {
		r := recover()
		alias(x, r.(*conn))
	}()
	panic(x)
}
