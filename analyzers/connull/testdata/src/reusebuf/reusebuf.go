// Package reusebuf is buntdb's insertIntoDatabase: a slice kept in a
// field for reuse, appended to, its elements cleared to nil and cut to
// length 0, from two goroutines with no lock. The elements' location has
// two names, the field's contents and append's; each dereference is
// reported once, under the field's name, with no "read here" entry for
// the range statement's read, which has no position of its own.
package reusebuf

type index struct{ n int }

type DB struct {
	idxs    []*index
	insIdxs []*index
}

func (db *DB) insert() {
	idxs := db.insIdxs
	for _, idx := range db.idxs {
		idxs = append(idxs, idx)
	}
	for i, idx := range idxs {
		idx.n++ // want `^DB.insIdxs\[\] may be nil when dereferenced here: \(\*DB\).insert stores nil to it concurrently$`
		idxs[i] = nil
	}
	db.insIdxs = idxs[:0]
}

func Open() *DB {
	db := &DB{}
	go db.manager()
	return db
}

func (db *DB) manager() {
	for {
		db.insert()
	}
}

func (db *DB) Set() { db.insert() }
