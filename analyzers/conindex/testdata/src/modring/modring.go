// Package modring: ring buffers whose position every put advances as
// `(pos + 1) % len(buf)`, unlocked, from several goroutines, the buffer
// made once when the ring is built (groupbytrace's ringBuffer). Every value
// a put stores is in range, and a put indexes only after its own store, so
// the index cannot be out of range: silent, as are a ring that writes
// before it advances from 0, one with an unsigned position and one
// reduced by a field set to the buffer's length with it. Reported beside
// them: a buffer appended to after it is built, a position advanced
// without a remainder, a remainder by a field that is not the buffer's
// length, a remainder of a signed parameter, the position used on another
// buffer, a read that need not follow the reader's own store (it may see
// the -1 the ring starts from), and a start below -1 that `pos + 1` leaves
// negative.
package modring

// ring is the reduction of groupbytrace's ringBuffer.
type ring struct {
	index int
	ids   []int
}

func newRing(n int) *ring { return &ring{index: -1, ids: make([]int, n)} }

func (r *ring) put(id int) int {
	r.index = (r.index + 1) % len(r.ids)
	evicted := r.ids[r.index]
	r.ids[r.index] = id
	return evicted
}

// log writes at its position, then advances it; it starts at 0.
type log struct {
	pos int
	buf []string
}

func newLog(n int) *log {
	l := &log{}
	l.buf = make([]string, n)
	return l
}

func (l *log) write(s string) {
	l.buf[l.pos] = s
	l.pos = (l.pos + 1) % len(l.buf)
}

// counter advances an unsigned count, reduced when stored.
type counter struct {
	n    uint64
	at   uint64
	hits []int
}

func (c *counter) hit() {
	c.n++
	c.at = c.n % uint64(len(c.hits))
	c.hits[c.at]++
}

// grown is appended to after it is built.
type grown struct {
	index int
	ids   []int
}

func (r *grown) put(id int) {
	r.index = (r.index + 1) % len(r.ids)
	r.ids[r.index] = id // want `may be out of range: r.index is written concurrently`
}

func (r *grown) grow() { r.ids = append(r.ids, 0) }

// unreduced advances without a remainder.
type unreduced struct {
	index int
	ids   []int
}

func (r *unreduced) put(id int) {
	r.index = r.index + 1
	if r.index == len(r.ids) {
		r.index = 0
	}
	r.ids[r.index] = id // want `may be out of range: r.index is written concurrently`
}

// held reduces by a field that holds the buffer's length: both are set
// by the one composite literal that makes a held (groupbytrace's
// `% r.size`).
type held struct {
	index int
	size  int
	ids   []int
}

func newHeld(size int) *held { return &held{index: -1, size: size, ids: make([]int, size)} }

func (r *held) put(id int) {
	r.index = (r.index + 1) % r.size
	r.ids[r.index] = id
}

// sized reduces by a size field that is not the buffer's length.
type sized struct {
	index int
	size  int
	ids   []int
}

func (r *sized) put(id int) {
	r.index = (r.index + 1) % r.size
	r.ids[r.index] = id // want `may be out of range: r.index is written concurrently`
}

// seeded reduces a signed parameter, negative for a negative seed.
type seeded struct {
	index int
	ids   []int
}

func (r *seeded) put(seed, id int) {
	r.index = seed % len(r.ids)
	r.ids[r.index] = id // want `may be out of range: r.index is written concurrently`
}

// twin indexes a second buffer with the first one's position.
type twin struct {
	index int
	ids   []int
	marks []bool
}

func (r *twin) put(id int) {
	r.index = (r.index + 1) % len(r.ids)
	r.ids[r.index] = id
	r.marks[r.index] = true // want `may be out of range: r.index is written concurrently`
}

// peeked is read by a peek that stores nothing first: before any put it
// sees the -1 the ring starts from.
type peeked struct {
	index int
	ids   []int
}

func (r *peeked) put(id int) {
	r.index = (r.index + 1) % len(r.ids)
	r.ids[r.index] = id
}

func (r *peeked) peek() int {
	return r.ids[r.index] // want `may be out of range: r.index is written concurrently`
}

// deep starts at -2: its first put stores (-2 + 1) % n, which is -1.
type deep struct {
	index int
	ids   []int
}

func (r *deep) put(id int) {
	r.index = (r.index + 1) % len(r.ids)
	r.ids[r.index] = id // want `may be out of range: r.index is written concurrently`
}

// Run builds one of each and uses it from two goroutines, unlocked.
func Run(seed int) {
	r := newRing(4)
	go r.put(1)
	go r.put(2)

	l := newLog(4)
	go l.write("a")
	go l.write("b")

	c := &counter{hits: make([]int, 4)}
	go c.hit()
	go c.hit()

	g := &grown{index: -1, ids: make([]int, 4)}
	go g.put(1)
	go g.put(2)
	go g.grow()

	u := &unreduced{ids: make([]int, 4)}
	go u.put(1)
	go u.put(2)

	h := newHeld(4)
	go h.put(1)
	go h.put(2)

	s := &sized{index: -1, size: 8, ids: make([]int, 4)}
	go s.put(1)
	go s.put(2)

	d := &seeded{ids: make([]int, 4)}
	go d.put(seed, 1)
	go d.put(seed, 2)

	t := &twin{index: -1, ids: make([]int, 4), marks: make([]bool, 2)}
	go t.put(1)
	go t.put(2)

	p := &peeked{index: -1, ids: make([]int, 4)}
	go p.put(1)
	go p.peek()

	q := &deep{index: -2, ids: make([]int, 4)}
	go q.put(1)
	go q.put(2)
}
