// Package reusebuf: a method gathers pointers in a reuse buffer kept in a
// field, uses them, clears each element and stores the buffer back empty
// (tidwall/buntdb's insertIntoDatabase and db.insIdxs), from two
// goroutines with no lock: the nils are never visible below the stored
// length, silent. The same buffer stored back with its elements still
// counted, or cut to one element, or stored whole while only a copy is cut
// to length 0, is reported. The elements' location has two names, the
// field's contents and append's; each dereference is reported once, under
// the field's name, with no "read here" entry for the range statement's
// read, which has no position of its own.
package reusebuf

type Index struct{ n *int }

type DB struct {
	idxs map[string]*Index

	scratch  []*Index
	kept     []*Index
	cutToOne []*Index
	dropped  []*Index
}

func (db *DB) insert() int {
	buf := db.scratch
	for _, idx := range db.idxs {
		buf = append(buf, idx)
	}
	total := 0
	for i, idx := range buf {
		if idx.n != nil {
			total++
		}
		buf[i] = nil
	}
	db.scratch = buf[:0]
	return total
}

func (db *DB) insertKept() int {
	buf := db.kept
	for _, idx := range db.idxs {
		buf = append(buf, idx)
	}
	total := 0
	for i, idx := range buf {
		if idx.n != nil { // want `^DB\.kept\[\] may be nil when dereferenced here: \(\*DB\)\.insertKept stores nil to it concurrently$`
			total++
		}
		buf[i] = nil
	}
	db.kept = buf
	return total
}

func (db *DB) insertCutToOne() int {
	buf := db.cutToOne
	for _, idx := range db.idxs {
		buf = append(buf, idx)
	}
	total := 0
	for i, idx := range buf {
		if idx.n != nil { // want `^DB\.cutToOne\[\] may be nil when dereferenced here: \(\*DB\)\.insertCutToOne stores nil to it concurrently$`
			total++
		}
		buf[i] = nil
	}
	db.cutToOne = buf[:1]
	return total
}

func (db *DB) insertDropped() int {
	buf := db.dropped
	for _, idx := range db.idxs {
		buf = append(buf, idx)
	}
	total := 0
	for i, idx := range buf {
		if idx.n != nil { // want `^DB\.dropped\[\] may be nil when dereferenced here: \(\*DB\)\.insertDropped stores nil to it concurrently$`
			total++
		}
		buf[i] = nil
	}
	db.dropped = buf
	return total + len(buf[:0])
}

func (db *DB) Set() {
	db.insert()
	db.insertKept()
	db.insertCutToOne()
	db.insertDropped()
}

// Open starts a background manager, which inserts as the importer's
// goroutines may.
func Open() *DB {
	db := &DB{}
	go db.manage()
	return db
}

func (db *DB) manage() {
	for {
		db.insert()
		db.insertKept()
		db.insertCutToOne()
		db.insertDropped()
	}
}
