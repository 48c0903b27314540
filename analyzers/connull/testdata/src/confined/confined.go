// Package confined: an iterator that a function makes through a
// constructor and closes before it returns, never storing it anywhere nor
// handing it to a goroutine, is the own iterator of whichever goroutine
// runs the function (badger's yieldItemValue, run by the caller and by
// each prefetch goroutine, each on a key iterator of its own). One
// allocation site in one constructor, returned to one call site, made
// them look like one iterator. Silent; the same iterator also handed to a
// goroutine (a cursor made the same way, handed as a go statement's
// receiver, captured by the goroutine's closure, or captured by a closure
// that the function only calls but that starts such a goroutine) is
// reported.
package confined

type Item struct {
	key    []byte
	parent *Iterator
}

type Iterator struct {
	item *Item
}

func NewIterator() *Iterator { return &Iterator{} }

func (it *Iterator) rewind() { it.item = nil }

func (it *Iterator) seek(k []byte) { it.item = &Item{key: k} }

func (it *Iterator) key() []byte { return it.item.key }

func (it *Iterator) close() {}

// next makes an item that keeps its iterator: the user's iterator is
// stored in the heap (so its items lead a prefetch goroutine to it).
func (it *Iterator) next() { it.item = &Item{key: []byte("k"), parent: it} }

// Value looks the item's value up with an iterator of its own.
func (i *Item) Value() []byte {
	it := NewIterator()
	defer it.close()
	it.rewind()
	it.seek(i.key)
	return it.key()
}

// Prefetch starts a goroutine per item, each running Value.
func Prefetch(n int) []byte {
	it := NewIterator()
	it.next()
	for range n {
		go it.item.Value()
	}
	return it.item.Value()
}

type Cursor struct {
	item *Item
}

func NewCursor() *Cursor { return &Cursor{} }

func (c *Cursor) rewind() { c.item = nil }

func (c *Cursor) seek(k []byte) { c.item = &Item{key: k} }

func (c *Cursor) key() []byte {
	return c.item.key // want `c.item may be nil when dereferenced here: \(\*Cursor\).rewind stores nil to it concurrently`
}

func (c *Cursor) other() []byte {
	return c.item.key // want `c.item may be nil when dereferenced here: \(\*Cursor\).rewind stores nil to it concurrently`
}

// ValueAsync hands its cursor to a goroutine as a go statement's
// receiver: reported.
func (i *Item) ValueAsync() []byte {
	c := NewCursor()
	go c.rewind()
	c.seek(i.key)
	return c.key()
}

// ValueCaptured lets a goroutine's closure capture its cursor: reported.
func (i *Item) ValueCaptured() []byte {
	c := NewCursor()
	c.seek(i.key)
	go func() {
		c.rewind()
	}()
	return c.other()
}

func (c *Cursor) third() []byte {
	return c.item.key // want `c.item may be nil when dereferenced here: \(\*Cursor\).rewind stores nil to it concurrently`
}

// ValueNested keeps its cursor in a variable that a closure it only calls
// captures, but that closure starts a goroutine capturing it in turn:
// reported.
func (i *Item) ValueNested() []byte {
	var c *Cursor
	start := func() {
		go func() {
			c.rewind()
		}()
	}
	c = NewCursor()
	c.seek(i.key)
	start()
	return c.third()
}
