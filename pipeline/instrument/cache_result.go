package instrument

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/precog-dev/precog/internal/exehash"
	"github.com/precog-dev/precog/pipeline/proc"
)

// Loading every package of the tests' import graph from source and running
// the shared-location analysis takes seconds (about 9 s for raft), while
// the inputs rarely change between two runs. So a Result is also stored
// under a key that hashes everything it depends on: precog's own
// executable, the Config, the go command's environment, go.mod and go.sum,
// and the name and content of every file of every non-standard package in
// the graph (go list -deps -test, which answers from its own cache in a
// fraction of a second). A run whose key has a stored Result whose files
// are all still there returns it without loading anything.

// resultKey computes the key of a run, or returns "" when it cannot tell
// (then the run computes its Result and stores nothing).
func resultKey(ctx context.Context, cfg Config, mod *moduleInfo) string {
	self, err := exehash.Sum()
	if err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "precog %s\n", self)
	cfgJSON, _ := json.Marshal(cfg)
	h.Write(cfgJSON)
	for _, a := range cfg.Checks {
		// The checks and their flags decide Result.Static.
		fmt.Fprintf(h, "check %s", a.Name)
		a.Flags.VisitAll(func(f *flag.Flag) { fmt.Fprintf(h, " -%s=%s", f.Name, f.Value) })
		fmt.Fprintln(h)
	}
	h.Write(mod.goEnv)
	fmt.Fprintf(h, "modules only %v\n", mod.modulesOnly) // a vendor directory made or removed
	hashFile(h, mod.GoMod)
	hashFile(h, filepath.Join(mod.Dir, "go.sum"))
	args := append([]string{"list", "-e", "-deps", "-test",
		"-json=ImportPath,Dir,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,SFiles,HFiles,Standard,Error"}, cfg.BuildFlags...)
	cmd := proc.Command(ctx, "go", append(append(args, "--"), cfg.Patterns...)...)
	cmd.Dir = cfg.Dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath, Dir                              string
			GoFiles, CgoFiles, TestGoFiles, XTestGoFiles []string
			SFiles, HFiles                               []string // assembly: which functions take the caller's Local (localCallees)
			Standard                                     bool
			Error                                        *struct{ Err string }
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil || p.Error != nil {
			return "" // let the load report it
		}
		fmt.Fprintf(h, "package %s %s\n", p.ImportPath, p.Dir)
		if p.Standard {
			continue // fixed by GOROOT and GOVERSION
		}
		for _, list := range [][]string{p.GoFiles, p.CgoFiles, p.TestGoFiles, p.XTestGoFiles, p.SFiles, p.HFiles} {
			for _, f := range list {
				if !hashFile(h, filepath.Join(p.Dir, f)) {
					return ""
				}
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:40]
}

// hashFile adds the name and content of the file at path to h. A missing
// file adds its name only; other errors report false.
func hashFile(h io.Writer, path string) bool {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(h, "file %s missing\n", path)
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	fmt.Fprintf(h, "file %s %d\n", path, fi.Size())
	_, err = io.Copy(h, f)
	return err == nil
}

// A storedResult is a Result and the directories it needs besides the
// files its overlay names: the shim module and the dependency copies.
type storedResult struct {
	Result Result
	Dirs   []string
}

// loadResult returns the Result stored under key, if all its files exist.
func (c *cache) loadResult(key string) *Result {
	if key == "" {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(c.dir, "results", key+".json"))
	if err != nil {
		return nil
	}
	var sr storedResult
	if json.Unmarshal(data, &sr) != nil {
		return nil
	}
	r := sr.Result
	ovPath, ok := strings.CutPrefix(firstOverlayFlag(r.BuildFlags), "-overlay=")
	if !ok || !exists(r.Sites) || !exists(ovPath) || (r.Plan != "" && !exists(r.Plan)) {
		return nil
	}
	for _, d := range sr.Dirs {
		if !exists(d) {
			return nil
		}
	}
	// The cache may have been trimmed: every file the overlay names must
	// still be there.
	ov, err := os.ReadFile(ovPath)
	if err != nil {
		return nil
	}
	var o struct{ Replace map[string]string }
	if json.Unmarshal(ov, &o) != nil {
		return nil
	}
	used := []string{filepath.Join(c.dir, "results", key+".json"), ovPath, r.Sites}
	if r.Plan != "" {
		used = append(used, r.Plan)
	}
	for _, p := range o.Replace {
		if !exists(p) {
			return nil
		}
		used = append(used, p)
	}
	touch(append(used, sr.Dirs...)...)
	return &r
}

// storeResult stores r under key, with the directories it needs.
func (c *cache) storeResult(key string, r *Result, dirs []string) error {
	if key == "" {
		return nil
	}
	data, err := json.Marshal(storedResult{Result: *r, Dirs: dirs})
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(c.dir, "results", key+".json"), data)
}

func firstOverlayFlag(flags []string) string {
	for _, f := range flags {
		if strings.HasPrefix(f, "-overlay=") {
			return f
		}
	}
	return ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
