package trace

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// A Site is one instrumented point of the code under test: an operation
// that the instrumenter rewrote into a shim call, which passes the site's
// ID. Events carry only the ID; the site table gives the rest.
type Site struct {
	ID   uint32 `json:"id"` // unique within one instrumented build; never 0
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	// Kind is the operation, as the instrumenter names it, such as "read",
	// "write", "lock" or "go".
	Kind     string `json:"kind"`
	Function string `json:"function"` // the enclosing function, such as "(*Bank).Transfer"
	// Decl and DeclLine are the top-level function declaration the site
	// is in, by name ("(*Bank).Transfer", also for a site in one of its
	// function literals) and the line of its func keyword; empty and 0
	// outside functions. A finding's ID counts a site's line from there,
	// so that edits outside the function leave the ID alone.
	Decl     string `json:"decl,omitempty"`
	DeclLine int    `json:"declLine,omitempty"`
	Expr     string `json:"expr"` // the source of the operand or call, such as "b.balance"
	// Cases describes a select's cases, one byte per case in the order
	// of the EvSelect case index: 'r' a receive, 's' a send, 'd' the
	// default. Empty for other sites.
	Cases string `json:"cases,omitempty"`
	// Uses says, for a read site, where the value read goes, as far as
	// the instrumenter's static analysis can tell: UseDeref, UseIndex,
	// UseLoopExit, UseBranch, and UsePointer for a pointer-shaped value,
	// separated by spaces ("deref loop-exit ptr"); for a write site, where
	// the value written comes from (UseCopy) and what the store keeps
	// (UseHeap); for an unlock site, whether its section keeps its values
	// to itself (UseSealed). Empty for other sites and
	// for accesses it cannot place.
	Uses string `json:"uses,omitempty"`
	// After, for a lock site, lists the lock sites of the operations
	// that a function of the program (outside _test.go files) calls
	// before this site's operation on the same object, as the
	// instrumenter's static analysis finds them: a two-step whose second
	// call relies on what the first saw (StringBuffer's Append calls
	// other.Length(), then other.GetChars: GetChars's Lock site lists
	// Length's). Site IDs in increasing order, separated by spaces (a
	// string keeps Site comparable); empty for other sites. detect/oscs
	// tells a caller's second step from a test loop's next call by it.
	After string `json:"after,omitempty"`
	// ExitLine and ExitCol, for an unlock site, are the end of the
	// return (or panic) that the Unlock's statement list reaches next,
	// with no jump between: the Unlock of an early exit (`if c.closed {
	// mu.Unlock(); return }`). Nothing after that position in the
	// function's source runs after this Unlock in the same call. 0 for
	// other sites, and where the instrumenter finds no such return.
	// detect/oscs reads them to judge whether a section hands a value on
	// past its Unlock.
	ExitLine int `json:"exitLine,omitempty"`
	ExitCol  int `json:"exitCol,omitempty"`
	// Guards, for a read or write site, lists the read sites of its
	// function whose value decides a branch that the access runs only
	// after taking, as the instrumenter's static analysis finds them:
	// every time the access runs, the If whose condition is computed from
	// the read (through arithmetic, comparisons and conversions) ran
	// before it, and its last run took the edge that leads to the access
	// (`if l.count == 0 { l.back = pc }`: the write of l.back lists the
	// read of l.count). Site IDs in increasing order, separated by
	// spaces; empty for other sites and for accesses that no recorded
	// read decides. detect/oscs tells, by it, a write that another
	// section's update decided from a blind one.
	Guards string `json:"guards,omitempty"`
	// Switches lists those of Guards whose branch's condition is the
	// value read itself (a bool), its negation, or its comparison with
	// nil (a pointer-shaped value, recorded as nil or not): a value that
	// the trace would record otherwise takes the other edge (`if
	// !srv.started { return }`). detect/oscs drops a pair whose later
	// access such a read, finding what the earlier section changed, let
	// run: in the other order it would not have run.
	Switches string `json:"switches,omitempty"`
}

// Follows reports whether id is one of the site's After.
func (s Site) Follows(id uint32) bool { return hasID(s.After, id) }

// GuardedBy reports whether id is one of the site's Guards.
func (s Site) GuardedBy(id uint32) bool { return hasID(s.Guards, id) }

// SwitchedBy reports whether id is one of the site's Switches.
func (s Site) SwitchedBy(id uint32) bool { return hasID(s.Switches, id) }

// hasID reports whether id is one of list's space-separated ids, without
// allocating.
func hasID(list string, id uint32) bool {
	var b [10]byte
	return hasField(list, string(strconv.AppendUint(b[:0], uint64(id), 10)))
}

// The uses of a read site's value (Site.Uses).
const (
	// UseDeref: the pointer read is dereferenced (*p, p.f, a method
	// called on it, a map stored to, a func called) without a nil check
	// of the same value.
	UseDeref = "deref"
	// UseIndex: the value flows, directly or through arithmetic, into an
	// index or slice bound, or it is the slice that is indexed or sliced.
	UseIndex = "index"
	// UseLoopExit: the value decides whether a loop is left (the loop's
	// condition, or an if in its body that breaks or returns).
	UseLoopExit = "loop-exit"
	// UseBranch: the value only decides branches: every use of it,
	// directly or through arithmetic, comparisons, conversions and phis,
	// is an if's condition, so it is not kept, returned, passed or
	// stored (`if p.closed { return }`). detect/oscs takes such a read
	// in a goroutine's first critical section for a premise that a
	// second section can check again, not a value carried into it.
	UseBranch = "branch"
	// UseCopy, on a write site: the value stored is loaded from memory
	// as it is, in the same statement (`q.rightMargin = q.tail`).
	// detect/oscs takes two such writes of one location, each a copy of
	// a location its critical section updates (read, then written), for
	// updates that commute, not a lost update.
	UseCopy = "copy"
	// UseHeap, on a write site: the store is in the Swap, Push or Pop
	// method of a type that implements container/heap.Interface, the
	// methods by which container/heap moves the items (`pq[i].index =
	// i`, `item.index = -1` as it leaves). detect/oscs takes two such
	// writes of one location for bookkeeping that each heap operation,
	// whole under the lock, leaves in step with the heap's order, not a
	// lost update.
	UseHeap = "heap"
	// UsePointer: the value read is pointer-shaped by its static type (a
	// pointer, map, channel, func, interface or unsafe.Pointer, or a type
	// parameter: a generic container's element), whatever is done with
	// it. detect/hb's hand-offs move such values.
	UsePointer = "ptr"
	// UseScalar: the value read is a boolean or a number of at most 8
	// bytes by its static type, whose writes' value word is the value's
	// bits (a pointer's is only nil or not, a string's its length):
	// detect/oscs compares such a read's goroutine's own write with
	// another goroutine's.
	UseScalar = "scalar"
	// UseSealed, on an unlock site: the critical section this Unlock
	// ends is one region of its function, entered at one Lock, and
	// nothing it computed is used after the Unlock but as a timer's or
	// a sleep's duration, nor stored where the function loads it again
	// (pipeline/instrument's sealed.go). detect/oscs takes the reads of
	// such a section for no premise of the goroutine's next section:
	// an expiration loop that reads the earliest deadline, sleeps that
	// long and looks at the queue afresh.
	UseSealed = "sealed"
)

// Used reports whether use is one of the site's Uses.
func (s Site) Used(use string) bool { return hasField(s.Uses, use) }

// hasField reports whether f is one of the space-separated fields of list,
// without allocating: detectors ask it per event (detect/oscs's spin
// flags, once per read in a critical section).
func hasField(list, f string) bool {
	start := -1
	for i := 0; i <= len(list); i++ {
		if i == len(list) || strings.IndexByte(" \t\n\v\f\r", list[i]) >= 0 {
			if start >= 0 && list[start:i] == f {
				return true
			}
			start = -1
		} else if start < 0 {
			start = i
		}
	}
	return false
}

// Pos returns the site's position as file:line:col.
func (s Site) Pos() string {
	return s.File + ":" + strconv.Itoa(s.Line) + ":" + strconv.Itoa(s.Col)
}

// A SiteTable maps site IDs to sites. The instrumenter writes it as JSON
// next to the instrumented build; traces do not contain it, so that the
// shim never needs it.
type SiteTable struct {
	Sites []Site `json:"sites"` // sorted by ID, for Lookup
}

// Lookup returns the site with the given ID. A nil table has no sites.
func (t *SiteTable) Lookup(id uint32) (Site, bool) {
	if t == nil {
		return Site{}, false
	}
	i, ok := slices.BinarySearchFunc(t.Sites, id, func(s Site, id uint32) int { return cmp.Compare(s.ID, id) })
	if !ok {
		return Site{}, false
	}
	return t.Sites[i], true
}

// LoadSites reads the site table in the JSON file at path. It sorts the
// sites by ID and rejects a table with a site 0 or two sites with one ID.
func LoadSites(path string) (*SiteTable, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t := new(SiteTable)
	if err := json.Unmarshal(data, t); err != nil {
		return nil, fmt.Errorf("site table %s: %w", path, err)
	}
	slices.SortFunc(t.Sites, func(a, b Site) int { return cmp.Compare(a.ID, b.ID) })
	for i, s := range t.Sites {
		if s.ID == 0 {
			return nil, fmt.Errorf("site table %s: site with id 0", path)
		}
		if i > 0 && t.Sites[i-1].ID == s.ID {
			return nil, fmt.Errorf("site table %s: two sites with id %d", path, s.ID)
		}
	}
	return t, nil
}
