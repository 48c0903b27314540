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
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", constpathSrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, _, err := ssautil.BuildPackage(&types.Config{Importer: importer.Default()}, fset,
		types.NewPackage("p", ""), []*ast.File{f}, ssa.SanityCheckFunctions)
	if err != nil {
		t.Fatal(err)
	}
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
