// Package taskjoined: Scan (gotestsum's ScanTestOutput, held-out
// rehearsal 46) fills an execution, on a task of a WaitGroup it makes,
// with packages that each hold a map of output lines, and waits for the
// task before it returns the execution. The exported readers (the
// packages' and the execution's OutputLines, the latter also called
// through an interface that a wrapper of the execution implements) run
// on the caller before Scan or after it returns, never while its task
// runs: silent, however they reach the packages (reported while only
// `go` statements' joins counted: through the interface, the readers'
// execution is not only a caller's parameter, so the packages in its map
// are any the package stores).
//
// Reported beside it, with the same types under other names: a scan that
// returns before the Wait on one path, whose caller then reads what its
// task writes (Early), and one that reads the output between the start
// and the Wait (Peek).
package taskjoined

import (
	"io"
	"strings"
	"sync"
)

type Execution struct {
	packages map[string]*Package
}

type Package struct {
	output map[string][]string
}

func (p *Package) addOutput(test, out string) {
	p.output[test] = append(p.output[test], out)
}

// OutputLines returns the lines recorded for test.
func (p *Package) OutputLines(test string) []string { return p.output[test] }

func (e *Execution) add(line string) {
	pkg, out, _ := strings.Cut(line, " ")
	p := e.packages[pkg]
	if p == nil {
		p = &Package{output: map[string][]string{}}
		e.packages[pkg] = p
	}
	p.addOutput("", out)
}

// OutputLines returns the lines recorded for pkg.
func (e *Execution) OutputLines(pkg string) []string { return e.packages[pkg].OutputLines("") }

type summary interface {
	OutputLines(pkg string) []string
}

type noOutput struct{ *Execution }

func (noOutput) OutputLines(string) []string { return nil }

// Summary writes the lines of pkg, or none when quiet.
func Summary(w io.Writer, e *Execution, pkg string, quiet bool) {
	var s summary = e
	if quiet {
		s = noOutput{e}
	}
	io.WriteString(w, strings.Join(s.OutputLines(pkg), ","))
}

// Scan adds lines to e (a new execution if e is nil) on a task it waits
// for, and returns e.
func Scan(e *Execution, lines []string) *Execution {
	if e == nil {
		e = &Execution{packages: map[string]*Package{}}
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, l := range lines {
			e.add(l)
		}
	})
	wg.Wait()
	return e
}

// Lines returns pkg's lines in lines.
func Lines(lines []string, pkg string) []string { return Scan(nil, lines).OutputLines(pkg) }

type EarlyExecution struct {
	packages map[string]*EarlyPackage
}

type EarlyPackage struct {
	output map[string][]string
}

func (p *EarlyPackage) addOutput(test, out string) {
	p.output[test] = append(p.output[test], out) // want `concurrent map read and map write: p.output is written here and read by \(\*EarlyPackage\).OutputLines with no common lock`
}

// OutputLines returns the lines recorded for test.
func (p *EarlyPackage) OutputLines(test string) []string { return p.output[test] }

func (e *EarlyExecution) add(line string) {
	pkg, out, _ := strings.Cut(line, " ")
	p := e.packages[pkg]
	if p == nil {
		p = &EarlyPackage{output: map[string][]string{}}
		e.packages[pkg] = p // want `concurrent map read and map write: e.packages is written here and read by \(\*EarlyExecution\).OutputLines with no common lock`
	}
	p.addOutput("", out)
}

// OutputLines returns the lines recorded for pkg.
func (e *EarlyExecution) OutputLines(pkg string) []string { return e.packages[pkg].OutputLines("") }

// ScanEarly returns e while its task still fills it unless wait.
func ScanEarly(e *EarlyExecution, lines []string, wait bool) *EarlyExecution {
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, l := range lines {
			e.add(l)
		}
	})
	if !wait {
		return e
	}
	wg.Wait()
	return e
}

// EarlyLines returns pkg's lines in lines.
func EarlyLines(lines []string, pkg string, wait bool) []string {
	e := &EarlyExecution{packages: map[string]*EarlyPackage{}}
	return ScanEarly(e, lines, wait).OutputLines(pkg)
}

type PeekExecution struct {
	packages map[string]*PeekPackage
}

type PeekPackage struct {
	output map[string][]string
}

func (p *PeekPackage) addOutput(test, out string) {
	p.output[test] = append(p.output[test], out)
}

// OutputLines returns the lines recorded for test.
func (p *PeekPackage) OutputLines(test string) []string { return p.output[test] }

func (e *PeekExecution) add(line string) {
	pkg, out, _ := strings.Cut(line, " ")
	p := e.packages[pkg]
	if p == nil {
		p = &PeekPackage{output: map[string][]string{}}
		e.packages[pkg] = p // want `concurrent map read and map write: e.packages is written here and read by \(\*PeekExecution\).OutputLines with no common lock`
	}
	p.addOutput("", out)
}

// OutputLines returns the lines recorded for pkg.
func (e *PeekExecution) OutputLines(pkg string) []string { return e.packages[pkg].OutputLines("") }

// ScanPeek writes pkg's lines to w while its task fills e.
func ScanPeek(w io.Writer, e *PeekExecution, lines []string, pkg string) *PeekExecution {
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, l := range lines {
			e.add(l)
		}
	})
	io.WriteString(w, strings.Join(e.OutputLines(pkg), ","))
	wg.Wait()
	return e
}
