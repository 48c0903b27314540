package ssaflow_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/precog-dev/precog/analyzers/internal/ssaflow"
)

const constpathSrc = `package p

func Counted(done chan bool) {
	for i := 0; i < 3; i++ {
		<-done
	}
	close(done)
}

func Range(done chan bool) {
	for range 3 {
		<-done
	}
	close(done)
}

func Handed(done chan bool, n int) {
	for i := 0; i < n; i++ {
		<-done
	}
	close(done)
}

func Zero(done chan bool) {
	for i := 0; i < 0; i++ {
		<-done
	}
	close(done)
}

func Break(done chan bool, stop bool) {
	for i := 0; i < 3; i++ {
		if stop {
			break
		}
		<-done
	}
	close(done)
}

const debug = true

func Debug(done chan bool) {
	if debug {
		<-done
	}
	close(done)
}
`

// TestRunsFirst asks whether each function's receive runs before its close
// on every path the constants allow.
func TestRunsFirst(t *testing.T) {
	pkg := buildPackage(t, constpathSrc)
	g := ssaflow.New()
	for name, want := range map[string]bool{
		"Counted": true, "Range": true, "Debug": true,
		"Handed": false, "Zero": false, "Break": false,
	} {
		fn := pkg.Func(name)
		var recv, close ssa.Instruction
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch instr := instr.(type) {
				case *ssa.UnOp:
					if instr.Op == token.ARROW {
						recv = instr
					}
				case *ssa.Call:
					close = instr
				}
			}
		}
		if g.Dominates(recv, close) {
			t.Errorf("%s: the receive dominates the close; the case asks nothing of RunsFirst", name)
		}
		if got := g.RunsFirst(recv, close); got != want {
			t.Errorf("%s: RunsFirst(receive, close) = %v, want %v", name, got, want)
		}
		// Zero's receive never runs: every path to it (none) runs
		// the close first.
		if got := g.RunsFirst(close, recv); got != (name == "Zero") {
			t.Errorf("%s: RunsFirst(close, receive) = %v", name, got)
		}
	}
}

const tripSrc = `package p

func Counted(done chan bool) {
	for i := 0; i < 3; i++ {
		<-done
	}
}

func From(done chan bool) {
	for i := 1; i <= 3; i++ {
		<-done
	}
}

func Range(done chan bool) {
	for range 3 {
		<-done
	}
}

func Exits(done chan bool, fail func()) {
	for i := 0; i < 3; i++ {
		if <-done {
			panic("bad")
		}
	}
}

func Handed(done chan bool, n int) {
	for i := 0; i < n; i++ {
		<-done
	}
}

func Break(done chan bool, stop bool) {
	for i := 0; i < 3; i++ {
		if stop {
			break
		}
		<-done
	}
}

func Continue(done chan bool, skip bool) {
	for i := 0; i < 3; i++ {
		if skip {
			continue
		}
		<-done
	}
}

func Bumped(done chan bool) {
	for i := 0; i < 3; i += 2 {
		<-done
	}
}

func Nested(done chan bool) {
	for j := 0; j < 2; j++ {
		for i := 0; i < 3; i++ {
			<-done
		}
	}
}

func Plain(done chan bool) {
	<-done
}

func Down(done chan bool) {
	for n := 3; n > 0; n-- {
		<-done
	}
}

func DownTo(done chan bool) {
	for n := 3; n >= 1; n-- {
		<-done
	}
}

func Wrong(done chan bool) {
	for n := 3; n < 5; n-- {
		<-done
	}
}

func Capped(done chan bool) {
	for range cap(done) {
		<-done
	}
}
`

// TestTripCount asks how many times each function's receive runs before
// its loop's exit: a constant count, or not known.
func TestTripCount(t *testing.T) {
	pkg := buildPackage(t, tripSrc)
	g := ssaflow.New()
	for name, want := range map[string]int{
		"Counted": 3, "From": 3, "Range": 3, "Exits": 3, "Down": 3, "DownTo": 3,
		"Handed": 0, "Break": 0, "Continue": 0, "Bumped": 0, "Nested": 0, "Plain": 0, "Wrong": 0, "Capped": 0,
	} {
		n, ok := g.TripCount(receiveIn(pkg.Func(name)))
		if ok != (want > 0) || n != want {
			t.Errorf("%s: TripCount = %d, %v; want %d", name, n, ok, want)
		}
	}
	// A bound the caller knows: cap of the channel, taken as 4.
	capOf := func(v ssa.Value) (int64, bool) {
		if c, ok := v.(*ssa.Call); ok {
			if b, ok := c.Call.Value.(*ssa.Builtin); ok && b.Name() == "cap" {
				return 4, true
			}
		}
		return ssaflow.IntConst(v)
	}
	recv := receiveIn(pkg.Func("Capped"))
	n, exit, ok := g.CountedLoop(recv, capOf)
	if !ok || n != 4 || exit == nil || exit == recv.Block() {
		t.Errorf("Capped: CountedLoop = %d, %v, %v; want 4 turns and the loop's exit", n, exit, ok)
	}
}

// receiveIn returns fn's last receive.
func receiveIn(fn *ssa.Function) ssa.Instruction {
	var recv ssa.Instruction
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if u, ok := instr.(*ssa.UnOp); ok && u.Op == token.ARROW {
				recv = instr
			}
		}
	}
	return recv
}

// buildPackage builds the SSA of package p from src.
func buildPackage(t *testing.T, src string) *ssa.Package {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, _, err := ssautil.BuildPackage(&types.Config{Importer: importer.Default()}, fset,
		types.NewPackage("p", ""), []*ast.File{f}, ssa.SanityCheckFunctions)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}
