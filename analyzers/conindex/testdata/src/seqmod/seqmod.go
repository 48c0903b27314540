// Package seqmod: a jitter buffer that maps a packet's sequence number to
// a slot as `int(seq) % j.max`, j.max set when the buffer is built to the
// length of the table it indexes (diago's RTPJitterBuffer), while the
// sequence number is written unlocked by another goroutine. Whatever value
// the read finds, a uint16 widened to int is not negative, and its
// remainder by the table's length is in range: silent, also when the length
// comes from an options struct the constructor adjusts first and reads
// twice. Reported beside it: a signed sequence number, a uint64 one
// converted to int (which may be negative), a remainder by a field that is
// not the table's length, and a length the constructor changes between
// its two reads.
package seqmod

type Options struct {
	Max   int
	Delay int
}

type buffer struct {
	max      int
	table    []int
	expected uint16
	signed   int
	wide     uint64
	other    int
}

func newBuffer(opts Options) *buffer {
	if opts.Max <= 0 {
		opts.Max = 10
	}
	if opts.Delay > opts.Max {
		opts.Delay = opts.Max
	}
	table := make([]int, opts.Max)
	for i := range table {
		table[i] = -1
	}
	return &buffer{max: opts.Max, table: table, other: opts.Delay}
}

func (j *buffer) read() int {
	position := int(j.expected) % j.max
	return j.table[position]
}

func (j *buffer) readSigned() int {
	return j.table[j.signed%j.max] // want `j.table\[j.signed % j.max\] may be out of range: j.signed is written concurrently`
}

func (j *buffer) readWide() int {
	return j.table[int(j.wide)%j.max] // want `may be out of range: j.wide is written concurrently`
}

func (j *buffer) readOther() int {
	return j.table[int(j.expected)%j.other] // want `may be out of range: j.expected is written concurrently`
}

func (j *buffer) advance() {
	j.expected++
	j.signed++
	j.wide++
}

// Run reads and advances on two goroutines.
func Run(opts Options) {
	j := newBuffer(opts)
	go j.advance()
	_ = j.read()
	_ = j.readSigned()
	_ = j.readWide()
	_ = j.readOther()
}

// moved's constructor changes the length between the make and the field.
type moved struct {
	max   int
	table []int
	seq   uint16
}

func newMoved(opts Options) *moved {
	table := make([]int, opts.Max)
	opts.Max++
	return &moved{max: opts.Max, table: table}
}

func (m *moved) read() int {
	return m.table[int(m.seq)%m.max] // want `may be out of range: m.seq is written concurrently`
}

// RunMoved reads and advances on two goroutines.
func RunMoved(opts Options) {
	m := newMoved(opts)
	go func() { m.seq++ }()
	_ = m.read()
}
