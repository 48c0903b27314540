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
