package instrument

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"

	"github.com/precog-dev/precog/pipeline/proc"
)

// The module path and pseudo-version under which the shim is injected.
const (
	shimModule  = "github.com/precog-dev/precog/shim"
	shimVersion = "v0.0.0-00010101000000-000000000000"
)

// minGo is the oldest language version the instrumented build can use:
// rewritten files call the shim's generic functions. A main module whose
// go directive is older is built as go 1.18: up to 1.18 the language
// only gained (number literals, generics, slice to array pointer
// conversions), no program means something else, and GODEBUG's defaults
// are the same for every go line before 1.20.
const minGo = "1.18"

// moduleInfo describes the main module that go runs in.
type moduleInfo struct {
	GoMod    string // absolute path of its go.mod
	Dir      string // its root directory
	ModCache string // GOMODCACHE
	Path     string // its module path
	goEnv    []byte // go env's answers, which select the files and types a build sees
	data     []byte // the contents of go.mod
	// goVersion is the language version of the instrumented build: the
	// go directive, raised to minGo.
	goVersion string
	// buildList is the module graph's selection (go list -m all, less the
	// main module), kept only when goVersion crosses go1.17 upwards: from
	// go1.17 on the go command prunes the graph to the modules go.mod
	// lists, so the overlaid go.mod must list every module the build takes
	// from, where the original left its dependencies' requirements to
	// their own go.mod files.
	buildList []module.Version
	// modulesOnly is set when the module has a vendor directory that its
	// own go line leaves unused (before go1.14 vendoring was opt-in, as
	// nxadm/tail's go 1.13 with a pre-1.14 vendor/modules.txt): the
	// overlaid go.mod's raised go line would turn vendoring on, and the go
	// command would refuse the build as inconsistent vendoring, so the
	// instrumented build says -mod=readonly, which is what go test does
	// with the original go.mod.
	modulesOnly bool
	// selfHosted is set when the main module holds the shim's package
	// path itself: precog's own module, whose tests then build against
	// its own shim/ directory instead of an injected module.
	selfHosted bool
}

// findModule asks the go command for the main module of dir and refuses the
// set-ups the overlay cannot serve: no module, a go.work workspace, and
// vendoring.
func findModule(ctx context.Context, dir string, buildFlags []string) (*moduleInfo, error) {
	out, err := goOutput(ctx, dir, "asking go for the module", "env", "-json", "GOMOD", "GOWORK", "GOFLAGS", "GOMODCACHE",
		"GOVERSION", "GOROOT", "GOOS", "GOARCH", "CGO_ENABLED", "GOEXPERIMENT")
	if err != nil {
		return nil, err
	}
	var env struct{ GOMOD, GOWORK, GOFLAGS, GOMODCACHE string }
	if err := json.Unmarshal(out, &env); err != nil {
		return nil, fmt.Errorf("asking go for the module: %w", err)
	}
	goEnv := out
	where := dir
	if where == "" {
		where, _ = os.Getwd()
	}
	if env.GOMOD == "" || env.GOMOD == os.DevNull {
		return nil, fmt.Errorf("no go.mod file in %s or any parent directory: precog instruments modules only", where)
	}
	if env.GOWORK != "" && env.GOWORK != "off" {
		return nil, fmt.Errorf("go.work workspaces are not supported (%s): run precog with GOWORK=off", env.GOWORK)
	}
	data, err := os.ReadFile(env.GOMOD)
	if err != nil {
		return nil, fmt.Errorf("reading go.mod: %w", err)
	}
	f, err := modfile.Parse(env.GOMOD, data, nil)
	if err != nil {
		return nil, fmt.Errorf("parsing go.mod: %w", err)
	}
	m := &moduleInfo{
		GoMod:    env.GOMOD,
		Dir:      filepath.Dir(env.GOMOD),
		ModCache: env.GOMODCACHE,
		goEnv:    goEnv,
		data:     data,
	}
	if f.Module != nil {
		m.Path = f.Module.Mod.Path
	}
	if f.Go != nil {
		m.goVersion = f.Go.Version
	}
	if m.goVersion == "" {
		m.goVersion = "1.16" // what the go command assumes
	}
	vendorDefault := !older(m.goVersion, "1.14")
	unpruned := older(m.goVersion, "1.17")
	if older(m.goVersion, minGo) {
		m.goVersion = minGo
	}
	m.selfHosted = strings.HasPrefix(shimModule, m.Path+"/")
	if m.Path == shimModule || strings.HasPrefix(m.Path, shimModule+"/") {
		return nil, fmt.Errorf("module %s cannot be instrumented: its path is the shim's", m.Path)
	}
	for _, r := range f.Require {
		switch {
		case r.Mod.Path == shimModule:
			return nil, fmt.Errorf("go.mod already requires %s: remove it, precog injects the shim itself", shimModule)
		case strings.HasPrefix(shimModule, r.Mod.Path+"/"):
			return nil, fmt.Errorf("go.mod requires %s, which holds a copy of the shim's packages: the injected shim would make their import ambiguous", r.Mod.Path)
		}
	}
	mode := modFlag(strings.Fields(env.GOFLAGS))
	if fm := modFlag(buildFlags); fm != "" {
		mode = fm
	}
	vendor := mode == "vendor"
	if mode == "" {
		// Since go 1.14 a vendor directory turns vendoring on by default.
		_, err := os.Stat(filepath.Join(m.Dir, "vendor", "modules.txt"))
		vendor = err == nil && vendorDefault
		m.modulesOnly = err == nil && !vendorDefault
	}
	if vendor {
		return nil, errors.New("vendored builds (-mod=vendor) are not supported: the shim module is not in vendor/modules.txt; pass -mod=readonly to build from the module cache")
	}
	if unpruned {
		if m.buildList, err = buildList(ctx, m.Dir); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// buildList returns the versions the go command selects for the module in
// dir, less the main module.
func buildList(ctx context.Context, dir string) ([]module.Version, error) {
	out, err := goOutput(ctx, dir, "listing the module's requirements", "list", "-m", "-f", "{{if not .Main}}{{.Path}} {{.Version}}{{end}}", "all")
	if err != nil {
		return nil, err
	}
	var list []module.Version
	for line := range strings.Lines(string(out)) {
		if path, vers, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			list = append(list, module.Version{Path: path, Version: vers})
		}
	}
	return list, nil
}

// goOutput runs the go command with args in dir and returns its standard
// output; its failure is what says what it was doing, then the go
// command's message on one line.
func goOutput(ctx context.Context, dir, doing string, args ...string) ([]byte, error) {
	cmd := proc.Command(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("%s: %s", doing, strings.Join(strings.Fields(msg), " "))
	}
	return out, nil
}

// modFlag returns the value of the last -mod flag in flags, or "".
func modFlag(flags []string) string {
	var v string
	for i, f := range flags {
		name, val, hasVal := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if name != "mod" || !strings.HasPrefix(f, "-") {
			continue
		}
		if !hasVal && i+1 < len(flags) {
			val = flags[i+1]
		}
		v = val
	}
	return v
}

// overlaidGoMod returns the main module's go.mod with the go line raised to
// m.goVersion, every module of m.buildList required at its selected
// version, the shim required and replaced by its directory in the cache
// (unless the module is precog's own), and each copied dependency replaced
// by its copy. Replacements of a copied module in the original file
// are dropped: the copy stands for what they pointed to.
func overlaidGoMod(m *moduleInfo, shimDir string, copies map[string]*depCopy) ([]byte, error) {
	f, err := modfile.Parse(m.GoMod, m.data, nil)
	if err != nil {
		return nil, fmt.Errorf("parsing go.mod: %w", err)
	}
	if f.Go == nil || older(f.Go.Version, m.goVersion) {
		if err := f.AddGoStmt(m.goVersion); err != nil {
			return nil, fmt.Errorf("editing go.mod: %w", err)
		}
	}
	for _, r := range m.buildList {
		if err := f.AddRequire(r.Path, r.Version); err != nil {
			return nil, fmt.Errorf("editing go.mod: %w", err)
		}
	}
	if !m.selfHosted {
		if err := f.AddRequire(shimModule, shimVersion); err != nil {
			return nil, fmt.Errorf("editing go.mod: %w", err)
		}
		if err := f.AddReplace(shimModule, "", shimDir, ""); err != nil {
			return nil, fmt.Errorf("editing go.mod: %w", err)
		}
	}
	paths := make([]string, 0, len(copies))
	for p := range copies {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		dc := copies[p]
		if dc == nil || dc.dir == "" {
			continue
		}
		for _, r := range slices.Clone(f.Replace) {
			if r.Old.Path == p {
				if err := f.DropReplace(r.Old.Path, r.Old.Version); err != nil {
					return nil, fmt.Errorf("editing go.mod: %w", err)
				}
			}
		}
		if err := f.AddReplace(p, "", dc.dir, ""); err != nil {
			return nil, fmt.Errorf("editing go.mod: %w", err)
		}
	}
	f.Cleanup()
	out, err := f.Format()
	if err != nil {
		return nil, fmt.Errorf("formatting go.mod: %w", err)
	}
	return out, nil
}
