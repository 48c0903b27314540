package conindex

import (
	_ "embed"
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"

	"github.com/precog-dev/precog/analyzers/internal/concurrent"
	"github.com/precog-dev/precog/analyzers/internal/source"
	"github.com/precog-dev/precog/analyzers/internal/suppress"
	"github.com/precog-dev/precog/analyzers/locksets"
	"github.com/precog-dev/precog/analyzers/sharedloc"
	"github.com/precog-dev/precog/detect/finding"
	"github.com/precog-dev/precog/internal/analyzerutil"
)

//go:embed doc.go
var doc string

// ID is the check's stable identifier.
const ID = finding.ConIndex

// maxFeedDepth bounds how many arithmetic steps an index is traced back.
const maxFeedDepth = 6

// Analyzer reports Con-Overflow bugs.
var Analyzer = &analysis.Analyzer{
	Name:       "conindex",
	Doc:        analyzerutil.MustExtractDoc(doc, "conindex"),
	URL:        "https://pkg.go.dev/github.com/precog-dev/precog/analyzers/conindex",
	Requires:   concurrent.Requires,
	Run:        analyzerutil.Guard(run, analyzerutil.NoSites),
	ResultType: analyzerutil.SitesType,
}

func init() { suppress.DefineAll(Analyzer) }

type checker struct {
	env *concurrent.Env
	rep *suppress.Reporter
}

func run(pass *analysis.Pass) (any, error) {
	c := &checker{env: concurrent.New(pass), rep: suppress.New(pass, ID)}
	c.env.AtOnce = true // the index changes between its check and its use only at the same time
	for _, fn := range c.env.Goroutines.Funcs() {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch in := instr.(type) {
				case *ssa.IndexAddr:
					c.check(in, in.X, in.Index)
				case *ssa.Slice:
					c.check(in, in.X, in.Low, in.High, in.Max)
				}
			}
		}
	}
	return c.rep.Finish(), nil
}

// check looks at one index or slice expression x of seq.
func (c *checker) check(x ssa.Instruction, seq ssa.Value, indexes ...ssa.Value) {
	if _, ok := seq.Type().Underlying().(*types.Basic); ok {
		return // strings are immutable
	}
	// Indexes checked against the length of another read of the slice's
	// location: the slice may be replaced between that read and x.
	checkedOther := make(map[ssa.Value]ssa.Value) // index -> the read whose length checked it
	_, isIndex := x.(*ssa.IndexAddr)
	for _, idx := range indexes {
		if idx == nil || c.reduced(idx, seq) || isIndex && (c.env.ModIndexed(idx, seq) || c.env.LenFieldRem(idx, seq)) {
			continue
		}
		loads := c.feedingLoads(idx, maxFeedDepth)
		if len(loads) == 0 {
			continue
		}
		if ok, other := checkedBelowLen(x, idx, seq); ok {
			if other != nil {
				checkedOther[idx] = other
			}
			continue
		}
		for _, load := range loads {
			what := c.env.Expr(load.Pos(), "the index")
			if c.racy(x, load, func(writer string) string {
				return fmt.Sprintf("%s is written concurrently by %s with no common lock", what, writer)
			}) {
				return
			}
		}
	}
	// The slice itself, re-read after its length was taken or checked.
	header, ok := seq.(*ssa.UnOp)
	if !ok || header.Op != token.MUL {
		return
	}
	hloc, ok := sharedloc.AddrLoc(header.X)
	if !ok {
		return
	}
	for _, idx := range indexes {
		if idx == nil {
			continue
		}
		var lens []ssa.Value // the other reads whose length idx rests on
		if other, ok := checkedOther[idx]; ok {
			lens = []ssa.Value{other}
		} else if ok, other := checkedBelowLen(x, idx, seq); ok && other != nil {
			// Computed from no shared location, checked against
			// another read's length (i := n-1 from a Len; then `if i <
			// len(s.items) { s.items[i] }` in a later section).
			lens = []ssa.Value{other}
		} else if !ok {
			lens = c.fromOtherRead(idx, header, hloc)
		}
		if len(lens) > 0 {
			what := c.env.Expr(header.Pos(), "the slice")
			c.racyAfter(x, header, lens, func(writer string, p concurrent.Pair) string {
				if c.env.Excluded(p) {
					// A common lock, released between the length
					// and the index.
					return fmt.Sprintf("%s is replaced concurrently by %s between the critical section that took its length and this one", what, writer)
				}
				return fmt.Sprintf("%s is replaced concurrently by %s with no common lock after its length was taken", what, writer)
			})
			return
		}
	}
}

// racyAfter is racy for the re-read header of a slice whose length was
// taken from the reads lens: a lock held at header protects it only if
// header's function held it from each of those reads to header, in
// whichever order they run (a Len in one section and an At with its result
// in the next is the atomicity shape, whatever lock each holds).
func (c *checker) racyAfter(x ssa.Instruction, header *ssa.UnOp, lens []ssa.Value, why func(writer string, p concurrent.Pair) string) bool {
	locks := c.env.Locks.All()
	held := locks.At(header)
	safe := func(p concurrent.Pair) bool {
		q := p
		q.VA.Locks = slices.DeleteFunc(slices.Clone(p.VA.Locks), func(h locksets.Held) bool {
			if _, ok := held.Lookup(h.Mutex); !ok {
				return false // held by the callers throughout
			}
			for _, l := range lens {
				in, ok := l.(ssa.Instruction)
				if !ok || !locks.HeldThrough(h.Mutex, in, header) && !locks.HeldThrough(h.Mutex, header, in) {
					return true
				}
			}
			return false
		})
		return c.env.Unprotected(q)
	}
	return c.report(x, header, safe, why)
}

// racy reports x if the shared location read by load is written by a
// goroutine that can overlap with x, with no common lock or order; why
// words the cause, given the writer's name. (The user's expressions stay
// out of format strings: a % in them, as in i%n, is theirs.)
func (c *checker) racy(x ssa.Instruction, load *ssa.UnOp, why func(writer string) string) bool {
	return c.report(x, load, c.env.Unprotected, func(writer string, _ concurrent.Pair) string { return why(writer) })
}

// report is racy with safe deciding which pairs are protected, and why
// given the pair too.
func (c *checker) report(x ssa.Instruction, load *ssa.UnOp, safe concurrent.Safe, why func(writer string, p concurrent.Pair) string) bool {
	env := c.env
	for _, r := range env.Shared.ByInstr[load] {
		if r.Op != sharedloc.Load {
			continue
		}
		for _, w := range env.Shared.ByLoc[r.Loc] {
			if w.Op != sharedloc.Store {
				continue
			}
			p, ok := env.Overlap(r, w, safe)
			if !ok {
				continue
			}
			writer := source.FuncName(w.Fn())
			expr := env.Expr(x.Pos(), "index expression")
			c.rep.ReportAssuming(env.Assumption(p), analysis.Diagnostic{
				Pos:     x.Pos(),
				Message: expr + " may be out of range: " + why(writer, p),
				Related: env.Related(p, fmt.Sprintf("written here by %s", writer)),
			}, analyzerutil.RoleAt{Role: finding.RoleIndex, Pos: r.Pos()}, analyzerutil.RoleAt{Role: finding.RoleWrite, Pos: w.Pos()})
			return true
		}
	}
	return false
}

// reduced reports whether idx is reduced into seq's range at the point of
// use, whatever the values it is computed from: a remainder of a value
// never negative (concurrent.Env.NonNegative: unsigned, or widened from a
// narrower unsigned type) by seq's length (a ring buffer's
// `buf[n%uint64(len(buf))]`), or a mask with
// the length less one (`buf[n&(len(buf)-1)]`, for any integer n, since the
// mask is not negative), so that a concurrent write of n cannot put it out
// of range. The length must be of seq itself or of another read of the
// same location; whether that location is replaced between the two reads
// is the slice check's question (fromOtherRead), asked all the same. For
// an array the length may be a constant no larger than the array's.
func (c *checker) reduced(idx, seq ssa.Value) bool {
	for {
		cv, ok := idx.(*ssa.Convert)
		if !ok || !wideInt(cv.Type()) {
			break
		}
		idx = cv.X
	}
	bin, ok := idx.(*ssa.BinOp)
	if !ok {
		return false
	}
	switch bin.Op {
	case token.REM:
		return c.env.NonNegative(bin.X) && lengthOf(bin.Y, seq)
	case token.AND:
		return lengthLessOne(bin.X, seq) || lengthLessOne(bin.Y, seq) || maskBelow(bin.X, seq) || maskBelow(bin.Y, seq)
	}
	return false
}

// checkedBelowLen reports whether the unsigned index idx, a value read
// once, is compared with the length of seq by a branch whose in-range side
// every path to x takes: `if i < len(s) { s[i] }`, or the loop that grows a
// slice until it holds the index, `for len(s) <= int(i) { s = append(s, 0)
// }; s[i]`. A concurrent write of the location i was read from cannot then
// put x out of range: the value indexed is the value checked. (A signed
// index is left to the race check: the branch bounds it from above only.)
// other tells that the length is of another read of seq's location, which
// the slice check then asks about.
func checkedBelowLen(x ssa.Instruction, idx, seq ssa.Value) (ok bool, other ssa.Value) {
	root := keptValue(idx)
	if t, isBasic := root.Type().Underlying().(*types.Basic); !isBasic || t.Info()&types.IsUnsigned == 0 {
		return false, nil
	}
	seen := map[ssa.Value]bool{}
	var uses []ssa.Value
	var walk func(v ssa.Value)
	walk = func(v ssa.Value) {
		if seen[v] {
			return
		}
		seen[v] = true
		uses = append(uses, v)
		refs := v.Referrers()
		if refs == nil {
			return
		}
		for _, u := range *refs {
			if cv, isConv := u.(*ssa.Convert); isConv && keeps(cv) {
				walk(cv)
			}
		}
	}
	walk(root)
	for _, v := range uses {
		refs := v.Referrers()
		if refs == nil {
			continue // a constant index: no comparison uses it
		}
		for _, u := range *refs {
			cmp, isBin := u.(*ssa.BinOp)
			if !isBin {
				continue
			}
			// The successor taken when v < len holds.
			var lenArg ssa.Value
			var inRange int
			switch {
			case cmp.X == v && cmp.Op == token.LSS, cmp.Y == v && cmp.Op == token.GTR:
				inRange = 0
			case cmp.X == v && cmp.Op == token.GEQ, cmp.Y == v && cmp.Op == token.LEQ:
				inRange = 1
			default:
				continue
			}
			lenArg = cmp.Y
			if cmp.Y == v {
				lenArg = cmp.X
			}
			if !lengthOf(lenArg, seq) || !takenTo(cmp, inRange, x) {
				continue
			}
			if sameLen(lenArg, seq) {
				return true, nil
			}
			return true, lenRead(lenArg)
		}
	}
	return false, nil
}

// lenRead returns the value that v, len or cap of it, measures (through
// conversions that keep every value), or v itself when v is no such call.
func lenRead(v ssa.Value) ssa.Value {
	call, ok := keptValue(v).(*ssa.Call)
	if !ok || len(call.Call.Args) != 1 {
		return v
	}
	if b, ok := call.Call.Value.(*ssa.Builtin); !ok || b.Name() != "len" && b.Name() != "cap" {
		return v
	}
	return call.Call.Args[0]
}

// keptValue strips the conversions that keep every value of their operand.
func keptValue(v ssa.Value) ssa.Value {
	for {
		cv, ok := v.(*ssa.Convert)
		if !ok || !keeps(cv) {
			return v
		}
		v = cv.X
	}
}

// keeps reports whether the integer conversion cv keeps every value of its
// operand: to a type at least as wide, signed only if wider than an
// unsigned operand.
func keeps(cv *ssa.Convert) bool {
	from, ok1 := cv.X.Type().Underlying().(*types.Basic)
	to, ok2 := cv.Type().Underlying().(*types.Basic)
	if !ok1 || !ok2 || from.Info()&types.IsInteger == 0 || to.Info()&types.IsInteger == 0 {
		return false
	}
	fb, tb := intBits(from.Kind()), intBits(to.Kind())
	fu, tu := from.Info()&types.IsUnsigned != 0, to.Info()&types.IsUnsigned != 0
	switch {
	case fu == tu:
		return tb >= fb
	case fu:
		return tb > fb
	}
	return false
}

// intBits is the width of an integer kind, int and uint taken at 64 bits
// only where that cannot matter: they are compared as the widest.
func intBits(k types.BasicKind) int {
	switch k {
	case types.Int8, types.Uint8:
		return 8
	case types.Int16, types.Uint16:
		return 16
	case types.Int32, types.Uint32:
		return 32
	}
	return 64
}

// sameLen reports whether v is len of seq itself.
func sameLen(v, seq ssa.Value) bool {
	v = keptValue(v)
	call, ok := v.(*ssa.Call)
	return ok && len(call.Call.Args) == 1 && call.Call.Args[0] == seq
}

// takenTo reports whether every path to x leaves cmp's branch by its
// successor succ: that successor dominates x and is entered only from the
// branch.
func takenTo(cmp *ssa.BinOp, succ int, x ssa.Instruction) bool {
	for _, u := range *cmp.Referrers() {
		ifi, ok := u.(*ssa.If)
		if !ok {
			continue
		}
		s := ifi.Block().Succs[succ]
		if len(s.Preds) == 1 && s.Dominates(x.Block()) {
			return true
		}
	}
	return false
}

// wideInt reports whether t holds every value of int that is not negative,
// so that converting a value in range to t keeps it.
func wideInt(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		return false
	}
	switch b.Kind() {
	case types.Int, types.Int64, types.Uint, types.Uint64, types.Uintptr:
		return true
	}
	return false
}

// lengthLessOne reports whether v is lengthOf(seq) minus the constant 1.
func lengthLessOne(v, seq ssa.Value) bool {
	for {
		cv, ok := v.(*ssa.Convert)
		if !ok {
			break
		}
		v = cv.X
	}
	bin, ok := v.(*ssa.BinOp)
	if !ok || bin.Op != token.SUB {
		return false
	}
	one, ok := bin.Y.(*ssa.Const)
	return ok && one.Value != nil && constant.Compare(one.Value, token.EQL, constant.MakeInt64(1)) && lengthOf(bin.X, seq)
}

// maskBelow reports whether v is a constant mask that is not negative and
// is below the length of the array seq, so that x&v is in range.
func maskBelow(v, seq ssa.Value) bool {
	k, ok := v.(*ssa.Const)
	if !ok || k.Value == nil || k.Value.Kind() != constant.Int {
		return false
	}
	n, exact := constant.Int64Val(k.Value)
	return exact && n >= 0 && n < arrayLen(seq.Type())
}

// lengthOf reports whether v is the length of seq: len of seq itself or of
// another read of its location, through conversions; or, for an array, a
// positive constant no larger than its length.
func lengthOf(v, seq ssa.Value) bool {
	for {
		cv, ok := v.(*ssa.Convert)
		if !ok {
			break
		}
		v = cv.X
	}
	if k, ok := v.(*ssa.Const); ok {
		n, exact := constant.Int64Val(constant.ToInt(k.Value))
		return exact && n > 0 && n <= arrayLen(seq.Type())
	}
	call, ok := v.(*ssa.Call)
	if !ok {
		return false
	}
	if b, ok := call.Call.Value.(*ssa.Builtin); !ok || b.Name() != "len" {
		return false
	}
	arg := call.Call.Args[0]
	if arg == seq {
		return true
	}
	a, ok1 := arg.(*ssa.UnOp)
	s, ok2 := seq.(*ssa.UnOp)
	if !ok1 || !ok2 || a.Op != token.MUL || s.Op != token.MUL {
		return false
	}
	la, ok1 := sharedloc.AddrLoc(a.X)
	ls, ok2 := sharedloc.AddrLoc(s.X)
	return ok1 && ok2 && la == ls
}

// arrayLen returns the length of an array or pointer-to-array type, or 0.
func arrayLen(t types.Type) int64 {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if a, ok := t.Underlying().(*types.Array); ok {
		return a.Len()
	}
	return 0
}

// feedingLoads returns the loads of shared locations that v is computed
// from by arithmetic and conversions.
func (c *checker) feedingLoads(v ssa.Value, depth int) []*ssa.UnOp {
	if depth == 0 {
		return nil
	}
	switch v := v.(type) {
	case *ssa.UnOp:
		if v.Op == token.MUL {
			if _, ok := sharedloc.AddrLoc(v.X); ok {
				return []*ssa.UnOp{v}
			}
			return nil
		}
		return c.feedingLoads(v.X, depth-1)
	case *ssa.BinOp:
		return append(c.feedingLoads(v.X, depth-1), c.feedingLoads(v.Y, depth-1)...)
	case *ssa.Convert:
		return c.feedingLoads(v.X, depth-1)
	case *ssa.ChangeType:
		return c.feedingLoads(v.X, depth-1)
	}
	return nil
}

// fromOtherRead returns the reads of hloc other than header whose length
// the index idx was computed from, or is checked against: the slice may
// have changed between such a read and header. None when there are none.
func (c *checker) fromOtherRead(idx ssa.Value, header *ssa.UnOp, hloc sharedloc.Loc) []ssa.Value {
	var found []ssa.Value
	other := func(v ssa.Value) bool {
		load, ok := v.(*ssa.UnOp)
		if !ok || load == header || load.Op != token.MUL {
			return false
		}
		l, ok := sharedloc.AddrLoc(load.X)
		if ok && l == hloc {
			found = append(found, load)
		}
		return ok && l == hloc
	}
	// Computed from len or cap of another read, or the key of a range
	// over one.
	if lenOf(idx, other, maxFeedDepth) {
		return found
	}
	// Checked against len of another read in a comparison that guards x.
	refs := idx.Referrers()
	if refs == nil {
		return nil
	}
	for _, u := range *refs {
		cmp, ok := u.(*ssa.BinOp)
		if !ok || !isComparison(cmp.Op) {
			continue
		}
		operand := cmp.X
		if operand == idx {
			operand = cmp.Y
		}
		found = found[:0]
		if lenOf(operand, other, maxFeedDepth) && c.guards(cmp, header) {
			return found
		}
	}
	return nil
}

// lenOf reports whether v is computed from len or cap of a value for
// which other holds, or is the index of a range loop over one.
func lenOf(v ssa.Value, other func(ssa.Value) bool, depth int) bool {
	if depth == 0 {
		return false
	}
	switch v := v.(type) {
	case *ssa.Call:
		if b, ok := v.Call.Value.(*ssa.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
			return other(v.Call.Args[0])
		}
	case *ssa.BinOp:
		return lenOf(v.X, other, depth-1) || lenOf(v.Y, other, depth-1)
	case *ssa.Convert:
		return lenOf(v.X, other, depth-1)
	case *ssa.Phi:
		// A range loop's index: i = phi(-1, i+1) compared with len.
		for _, e := range v.Edges {
			if bin, ok := e.(*ssa.BinOp); ok && bin.Op == token.ADD && (bin.X == v || bin.Y == v) {
				if refs := v.Referrers(); refs != nil {
					for _, u := range *refs {
						if cmp, ok := u.(*ssa.BinOp); ok && isComparison(cmp.Op) && (lenOf(cmp.X, other, depth-1) || lenOf(cmp.Y, other, depth-1)) {
							return true
						}
					}
				}
			}
		}
		for _, e := range v.Edges {
			if bin, ok := e.(*ssa.BinOp); ok && bin.Op == token.ADD {
				if lenOf(bin, other, 1) {
					return true
				}
			}
		}
	}
	return false
}

// guards reports whether cmp is the condition of a branch that dominates x.
func (c *checker) guards(cmp *ssa.BinOp, x ssa.Instruction) bool {
	refs := cmp.Referrers()
	if refs == nil {
		return false
	}
	for _, u := range *refs {
		if ifi, ok := u.(*ssa.If); ok && ifi.Block().Dominates(x.Block()) {
			return true
		}
	}
	return false
}

func isComparison(op token.Token) bool {
	switch op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ, token.EQL, token.NEQ:
		return true
	}
	return false
}
