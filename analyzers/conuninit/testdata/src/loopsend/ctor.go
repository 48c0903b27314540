package loopsend

// A constructor that starts its store's worker and only then sets the
// field the worker reads for an item it received from the store's
// queue, which only the returned store's Set sends on (theine's
// NewStore): the worker cannot read it before it is set, silent.
// Reported: the constructor queues an item itself first, a function it
// calls does, or the store is handed to a function that passes it to a
// running goroutine. (Each constructor
// starts a worker of its own: a read is reported once.)

type item struct{ key int }

type store struct {
	queue chan item
	last  *int
}

// newStore is the shape.
func newStore(keep bool) *store {
	s := &store{queue: make(chan item, 64)}
	go s.work()
	if keep {
		s.last = new(int)
	}
	return s
}

// Set queues key for the store's worker.
func (s *store) Set(key int) { s.queue <- item{key} }

func (s *store) work() {
	for it := range s.queue {
		if s.last != nil {
			*s.last = it.key
		}
	}
}

// newQueuedStore queues an item before it sets the field.
func newQueuedStore() *store {
	s := &store{queue: make(chan item, 64)}
	go s.workQueued()
	s.Set(0)
	s.last = new(int)
	return s
}

func (s *store) workQueued() {
	for it := range s.queue {
		*s.last = it.key // want `s.last may be read before it is set`
	}
}

// newWarmStore calls a method that queues an item.
func newWarmStore() *store {
	s := &store{queue: make(chan item, 64)}
	go s.workWarm()
	s.warm()
	s.last = new(int)
	return s
}

func (s *store) warm() { s.Set(-1) }

func (s *store) workWarm() {
	for it := range s.queue {
		*s.last = it.key // want `s.last may be read before it is set`
	}
}

// stores carries stores to a running goroutine that queues items on
// them.
var stores = make(chan *store, 1)

func init() {
	go func() {
		for s := range stores {
			s.Set(1)
		}
	}()
}

// newListedStore hands the store to list, which sends it to that
// goroutine, before it sets the field.
func newListedStore() *store {
	s := &store{queue: make(chan item, 64)}
	go s.workListed()
	list(s)
	s.last = new(int)
	return s
}

func list(s *store) { stores <- s }

func (s *store) workListed() {
	for it := range s.queue {
		*s.last = it.key // want `s.last may be read before it is set`
	}
}

// latest is the store that Tick queues on, from any goroutine.
var latest *store

// Tick queues an item on the latest store.
func Tick() {
	if s := latest; s != nil {
		s.Set(2)
	}
}

// newLatestStore makes the store the latest before it sets the field.
func newLatestStore() *store {
	s := &store{queue: make(chan item, 64)}
	go s.workLatest()
	latest = s
	s.last = new(int)
	return s
}

func (s *store) workLatest() {
	for it := range s.queue {
		*s.last = it.key // want `s.last may be read before it is set`
	}
}

// The store, stored in something of its own, still gets out: review33's
// w8, w9 and w2, each a nil dereference under go run. (Each has a type of
// its own, as each constructor above a worker of its own.)

// hooks carries functions to a running goroutine that calls them.
var hooks = make(chan func(), 1)

// kids carries children to a running goroutine that queues on their
// parents.
var kids = make(chan *kid, 1)

// entries carries list entries to a running goroutine that queues on
// their owners.
var entries = make(chan *entry, 1)

func init() {
	go func() {
		for h := range hooks {
			h()
		}
	}()
	go func() {
		for k := range kids {
			k.parent.Set(3)
		}
	}()
	go func() {
		for e := range entries {
			e.owner.Set(4)
		}
	}()
}

type hookedStore struct {
	queue   chan item
	last    *int
	onFlush func()
}

func (s *hookedStore) Set(key int) { s.queue <- item{key} }

// newHookedStore keeps a callback that queues in a field of its own and
// hands what it loads from there to the hooks' goroutine.
func newHookedStore() *hookedStore {
	s := &hookedStore{queue: make(chan item, 64)}
	s.onFlush = func() { s.Set(0) }
	go s.work()
	hooks <- s.onFlush
	s.last = new(int)
	return s
}

func (s *hookedStore) work() {
	for it := range s.queue {
		*s.last = it.key // want `s.last may be read before it is set`
	}
}

type kid struct{ parent *kidStore }

type kidStore struct {
	queue chan item
	last  *int
	kid   *kid
}

func (s *kidStore) Set(key int) { s.queue <- item{key} }

// newKidStore publishes its child, which it then points back at the
// store.
func newKidStore() *kidStore {
	s := &kidStore{queue: make(chan item, 64)}
	k := &kid{}
	s.kid = k
	kids <- k
	go s.work()
	s.kid.parent = s
	s.last = new(int)
	return s
}

func (s *kidStore) work() {
	for it := range s.queue {
		*s.last = it.key // want `s.last may be read before it is set`
	}
}

type entry struct{ owner *entryStore }

type entryStore struct {
	queue chan item
	last  *int
	elem  entry
}

func (s *entryStore) Set(key int) { s.queue <- item{key} }

// newEntryStore hands out the address of its list entry, which points
// back at the store.
func newEntryStore() *entryStore {
	s := &entryStore{queue: make(chan item, 64)}
	s.elem.owner = s
	go s.work()
	entries <- &s.elem
	s.last = new(int)
	return s
}

func (s *entryStore) work() {
	for it := range s.queue {
		*s.last = it.key // want `s.last may be read before it is set`
	}
}

// flushedStore is a store that no running goroutine queues on.
type flushedStore struct {
	queue   chan item
	last    *int
	onFlush func()
	self    *flushedStore
}

func (s *flushedStore) Set(key int) { s.queue <- item{key} }

// newFlushedStore keeps such a callback, and itself, in fields of its
// own, and hands out neither: silent.
func newFlushedStore() *flushedStore {
	s := &flushedStore{queue: make(chan item, 64)}
	s.onFlush = func() { s.Set(0) }
	s.self = s
	go s.work()
	s.last = new(int)
	return s
}

func (s *flushedStore) work() {
	for it := range s.queue {
		*s.last = it.key
	}
}
