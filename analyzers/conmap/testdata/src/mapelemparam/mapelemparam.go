// Package mapelemparam: Scan's task goroutine fills an execution's map
// with packages and writes each package's own map; Scan waits for it
// before it returns the execution. The exported OutputLines methods read
// an execution a caller outside the package passes: no evidence makes it
// Scan's execution while the goroutine runs, nor, through its map, the
// packages the goroutine writes (silent, as for the execution's own map).
// Fill reads, without waiting, a job of the run it was passed and handed
// to its goroutine: the parameter names the one run on both sides, and
// its map the jobs in it (reported; silent before, when the lookups'
// context-insensitive sets held only objects of outside callers' maps).
// Watch reads through a registry it made itself, whose goroutine it
// started (reported).
package mapelemparam

import (
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

// Scan adds lines to e (a new execution if e is nil) on a goroutine it
// waits for.
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

type Run struct {
	jobs map[string]*Job
}

type Job struct {
	out map[string]int
}

func (r *Run) add(name, line string) {
	r.jobs[name].out[line]++ // want `concurrent map read and map write: r.jobs\[name\].out is written here and read by Fill with no common lock`
}

// Fill adds lines to r on a goroutine and reads a count of job x
// meanwhile.
func Fill(r *Run, lines []string) int {
	go func() {
		for _, l := range lines {
			r.add("x", l)
		}
	}()
	return r.jobs["x"].out["a"]
}

type Registry struct {
	pkgs map[string]*Entry
}

type Entry struct {
	lines map[string]int
}

func (r *Registry) add(name, line string) {
	en := r.pkgs[name]
	if en == nil {
		en = &Entry{lines: map[string]int{}}
		r.pkgs[name] = en // want `concurrent map read and map write: r.pkgs is written here and read by Watch with no common lock`
	}
	en.lines[line]++ // want `concurrent map read and map write: en.lines is written here and read by Watch with no common lock`
}

// Watch counts lines on a goroutine and reads a count while it runs.
func Watch(lines []string, name string) int {
	r := &Registry{pkgs: map[string]*Entry{"x": {lines: map[string]int{}}}}
	go func() {
		for _, l := range lines {
			r.add(name, l)
		}
	}()
	return r.pkgs["x"].lines[name]
}
