package instrument

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"

	"github.com/precog-dev/precog/pipeline/proc"
)

// Replacing a dependency by a directory (a copy) can make the go command
// read go.mod files it did not need before: those of the requirements of
// a copied module that predates module graph pruning (go < 1.17), such as
// gopkg.in/yaml.v3's requirement gopkg.in/check.v1. The build then stops at
// "missing go.sum entry for go.mod file". completeGoSum finds those entries
// by asking go list for the build's packages through the overlay, and adds
// them to an overlaid go.sum: the user's go.sum is never written.

// maxSumRounds bounds the go list runs: each finds at least one entry.
const maxSumRounds = 50

var missingGoModSum = regexp.MustCompile(`(?m)^\s*(\S+)@(\S+): missing go.sum entry for go.mod file`)

// completeGoSum adds to the overlay a go.sum with the entries the build
// through ov needs beyond the module's own go.sum, if any.
func completeGoSum(ctx context.Context, c *cache, cfg Config, mod *moduleInfo, ov *overlay) error {
	sumPath := filepath.Join(mod.Dir, "go.sum")
	sum, err := os.ReadFile(sumPath)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("reading go.sum: %w", err)
	}
	orig := len(sum)
	for range maxSumRounds {
		ovPath, err := c.putJSON("overlay", ov.json())
		if err != nil {
			return err
		}
		args := append([]string{"list", "-deps", "-test", "-overlay=" + ovPath}, cfg.BuildFlags...)
		cmd := proc.Command(ctx, "go", append(append(args, "--"), cfg.Patterns...)...)
		cmd.Dir = cfg.Dir
		cmd.Env = append(os.Environ(), "GOFLAGS="+os.Getenv("GOFLAGS")+" -mod=readonly")
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if cmd.Run() == nil {
			return nil
		}
		missing := missingGoModSum.FindAllStringSubmatch(stderr.String(), -1)
		if len(missing) == 0 {
			return nil // another problem, which the build will report
		}
		for _, m := range missing {
			line := m[1] + " " + m[2] + "/go.mod "
			if bytes.Contains(sum, []byte(line)) {
				return fmt.Errorf("the instrumented build wants the go.sum entry of %s@%s/go.mod, which precog added: %s", m[1], m[2], strings.TrimSpace(stderr.String()))
			}
			h, err := goModSum(ctx, mod.ModCache, m[1], m[2])
			if err != nil {
				return err
			}
			if len(sum) > 0 && sum[len(sum)-1] != '\n' {
				sum = append(sum, '\n')
			}
			sum = append(sum, line+h+"\n"...)
		}
		p, err := c.putNamed("sum", "go.sum", sum)
		if err != nil {
			return err
		}
		ov.add(sumPath, p)
	}
	return fmt.Errorf("the instrumented build still misses go.sum entries after adding %d bytes of them", len(sum)-orig)
}

// goModSum returns the go.sum hash of the go.mod file of path@version: from
// the module cache's download directory if it is there, else from go mod
// download (run outside any module, so that no go.sum is touched).
func goModSum(ctx context.Context, modCache, path, version string) (string, error) {
	escPath, err1 := module.EscapePath(path)
	escVer, err2 := module.EscapeVersion(version)
	if err1 == nil && err2 == nil && modCache != "" {
		f := filepath.Join(modCache, "cache", "download", filepath.FromSlash(escPath), "@v", escVer+".mod")
		if data, err := os.ReadFile(f); err == nil {
			return dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
				return io.NopCloser(bytes.NewReader(data)), nil
			})
		}
	}
	tmp, err := os.MkdirTemp("", "precog-download-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := proc.Command(ctx, "go", "mod", "download", "-json", path+"@"+version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GO111MODULE=on")
	out, err := cmd.Output()
	var dl struct{ GoModSum, Error string }
	if jerr := json.Unmarshal(out, &dl); jerr != nil || dl.GoModSum == "" {
		msg := dl.Error
		if msg == "" && err != nil {
			msg = err.Error()
		}
		return "", fmt.Errorf("the instrumented build needs the go.sum entry of %s@%s/go.mod: go mod download: %s", path, version, msg)
	}
	return dl.GoModSum, nil
}
