// Package methodvalue: a goroutine is handed a struct whose field holds a
// method value of a connection (rows.release = c.release), and calls it
// when the rows are done; the method clears the connection's database.
// The connection is reachable from what the goroutine was handed only
// through the method value's receiver. The caller still uses its
// connection's database: reported. A second connection, whose method
// value is handed to the goroutine instead, leaves the caller's own
// connection alone: silent.
package methodvalue

import "sync"

type DB struct {
	name string
}

type Conn struct {
	mu sync.Mutex
	db *DB
}

func (c *Conn) release() {
	c.mu.Lock()
	c.db = nil
	c.mu.Unlock()
}

type Rows struct {
	done    chan struct{}
	release func()
}

func (r *Rows) await() {
	<-r.done
	r.release()
}

func watch(c *Conn) *Rows {
	r := &Rows{done: make(chan struct{}), release: c.release}
	go r.await()
	return r
}

// Query watches its connection and reads its database meanwhile.
func Query(db *DB) (*Rows, string) {
	c := &Conn{db: db}
	rows := watch(c)
	return rows, c.db.name // want `c.db may be nil when dereferenced here: \(\*Conn\).release stores nil to it concurrently`
}

// QuerySpare watches a spare connection and reads its own.
func QuerySpare(db *DB) (*Rows, string) {
	spare := &Conn{db: db}
	rows := watch(spare)
	own := &Conn{db: db}
	return rows, own.db.name
}
