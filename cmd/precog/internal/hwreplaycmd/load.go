package hwreplaycmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/trace"
)

// A traceFile is one trace to replay, with the site table of its build and
// the name of its test.
type traceFile struct {
	path  string
	test  string // "importpath.TestName", or "" to take it from the header
	sites string
	// wall is how long the test ran (uninstrumented if the index has
	// it, else recorded); 0 if unknown.
	wall time.Duration
}

// resolve turns the arguments into trace files: a directory that precog
// record or precog test -o wrote (it holds index.json) stands for all its
// traces, perturbed runs included; a file is one trace, whose site table
// is -sites or the sites.json of the nearest directory above it that has
// one.
func resolve(args []string, sitesFlag string) ([]traceFile, error) {
	var out []traceFile
	for _, arg := range args {
		fi, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if fi.IsDir() {
			fs, err := fromIndex(arg, sitesFlag)
			if err != nil {
				return nil, err
			}
			out = append(out, fs...)
			continue
		}
		sites := sitesFlag
		if sites == "" {
			if sites = findSites(filepath.Dir(arg)); sites == "" {
				return nil, fmt.Errorf("%s: no sites.json in its directory or above it; name the site table with -sites", arg)
			}
		}
		out = append(out, traceFile{path: arg, sites: sites})
	}
	return out, nil
}

func fromIndex(dir, sitesFlag string) ([]traceFile, error) {
	ix, err := record.ReadIndex(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: a directory must be one precog record -o or precog test -o wrote (it has no index.json)", dir)
	}
	if err != nil {
		return nil, err
	}
	sites := sitesFlag
	if sites == "" {
		sites = filepath.Join(dir, filepath.FromSlash(ix.Sites))
	}
	var out []traceFile
	for _, p := range ix.Packages {
		for _, t := range p.Tests {
			name := p.ImportPath + "." + t.Name
			if t.Trace != "" {
				wall := t.PlainWall
				if wall == 0 {
					wall = t.Wall
				}
				out = append(out, traceFile{path: filepath.Join(dir, filepath.FromSlash(t.Trace)), test: name, sites: sites, wall: wall})
			}
			for _, r := range t.Runs {
				if r.Trace != "" {
					out = append(out, traceFile{path: filepath.Join(dir, filepath.FromSlash(r.Trace)), test: name, sites: sites, wall: r.Wall})
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: index.json lists no traces", dir)
	}
	return out, nil
}

func findSites(dir string) string {
	for {
		p := filepath.Join(dir, "sites.json")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// readTrace reads a trace, sorted; a broken one returns the events before
// the damage with an error wrapping trace.ErrBroken.
func readTrace(path string) (*trace.Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tr, err := trace.ReadAll(f)
	if tr == nil && err == nil {
		err = errors.New("empty trace")
	}
	return tr, err
}
