// Package ci holds the example nightly job: a GitHub Actions workflow
// (precog-nightly.yml) and the script its steps call
// (precog-nightly.sh), which other CI systems call the same way. The test
// runs the workflow's steps as GitHub would, on the bundled kernels.
package ci

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/precog-dev/precog/internal/corpus"
)

// A step is one step of a workflow job, as far as the test needs it.
type step struct {
	run  string            // the shell command of a run step
	uses string            // the action of a uses step
	with map[string]string // its inputs
}

// A workflow is the jobs of a workflow file and the matrix values of
// each job's "shard".
type workflow struct {
	jobs   map[string][]step
	order  []string
	matrix map[string][]string
	env    map[string]string
}

// readWorkflow reads the subset of YAML the workflow file uses: jobs,
// their steps' run, uses and with keys, a matrix list and env. It is a
// minimal reader for this file, not a YAML parser: it fails on lines it
// does not understand inside a step.
func readWorkflow(t *testing.T, path string) *workflow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := &workflow{jobs: map[string][]step{}, matrix: map[string][]string{}, env: map[string]string{}}
	key := regexp.MustCompile(`^( *)(- )?([A-Za-z_-]+):\s*(.*)$`)
	var job, section string
	var cur *step
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		m := key.FindStringSubmatch(line)
		if m == nil {
			if strings.HasPrefix(strings.TrimSpace(line), "- ") && section == "on" {
				continue // schedule entries
			}
			t.Fatalf("%s: cannot read line %q", path, line)
		}
		indent, item, k, v := len(m[1]), m[2] != "", m[3], strings.Trim(m[4], `"`)
		switch {
		case indent == 0:
			section, job = k, ""
		case section == "env" && indent == 2:
			w.env[k] = v
		case section == "jobs" && indent == 2:
			job, cur = k, nil
			w.order = append(w.order, k)
		case job != "" && k == "shard" && strings.HasPrefix(v, "["):
			for _, x := range strings.Split(strings.Trim(v, "[]"), ",") {
				w.matrix[job] = append(w.matrix[job], strings.TrimSpace(x))
			}
		case job != "" && item && indent == 6:
			w.jobs[job] = append(w.jobs[job], step{with: map[string]string{}})
			cur = &w.jobs[job][len(w.jobs[job])-1]
			fallthrough
		case cur != nil && indent == 8:
			switch k {
			case "run":
				cur.run = v
			case "uses":
				cur.uses = v
			}
		case cur != nil && indent == 10:
			cur.with[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return w
}

const install = "go install github.com/precog-dev/precog/cmd/precog@latest"

// TestWorkflow runs the example workflow's run steps, shard job (both
// matrix entries) then merge job, on three kernels with a precog built
// from this tree in place of the install step, and checks what the
// other steps take from them: the artifacts' and the SARIF log's paths
// exist. The kernels hold confirmed bugs, so the merge step fails the
// job; with a baseline written from those findings, it passes.
func TestWorkflow(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the workflow's steps")
	}
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(here, "..", "..")
	w := readWorkflow(t, "precog-nightly.yml")
	if strings.Join(w.order, " ") != "shard merge" || len(w.matrix["shard"]) != 2 {
		t.Fatalf("workflow jobs %v, matrix %v: want shard (2 entries) and merge", w.order, w.matrix)
	}

	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "precog"), "./cmd/precog")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building precog: %v\n%s", err, out)
	}
	env := append(os.Environ(),
		"PATH="+bin+string(filepath.ListSeparator)+os.Getenv("PATH"),
		"PRECOG_PACKAGES=./mysql ./fft ./doneadd",
		"PRECOG_FLAGS=-timeout 1m -cache "+filepath.Join(tmp, "cache"),
		"PRECOG_RESULTS="+filepath.Join(tmp, "precog-results"),
		"PRECOG_TIMES="+filepath.Join(tmp, ".precog-times"),
		"PRECOG_BASELINE="+filepath.Join(tmp, ".precog-baseline"),
	)
	for _, k := range []string{"PRECOG_PACKAGES", "PRECOG_FLAGS"} {
		if w.env[k] == "" {
			t.Errorf("the workflow sets no %s", k)
		}
	}
	script := "examples/ci/precog-nightly.sh"
	// run runs the run steps of job with the matrix value shard and
	// checks each path its other steps name; it returns the exit status
	// of the last run step.
	run := func(job, shard string) int {
		t.Helper()
		code := 0
		for _, s := range w.jobs[job] {
			expand := func(v string) string { return strings.ReplaceAll(v, "${{ matrix.shard }}", shard) }
			switch {
			case s.run == install:
				continue // precog from this tree is on PATH instead
			case s.run != "":
				cmdline := expand(s.run)
				if !strings.Contains(cmdline, script) {
					t.Fatalf("run step %q does not call %s", s.run, script)
				}
				cmd := exec.Command("sh", "-c", strings.ReplaceAll(cmdline, script, filepath.Join(here, "precog-nightly.sh")))
				cmd.Dir, cmd.Env = corpus.Dir(), env
				out, err := cmd.CombinedOutput()
				code = 0
				if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatalf("%s: %v", cmdline, err)
				}
				t.Logf("%s: exit %d\n%s", cmdline, code, out)
			case strings.HasPrefix(s.uses, "actions/upload-artifact"), strings.HasPrefix(s.uses, "github/codeql-action/upload-sarif"):
				p := expand(s.with["path"] + s.with["sarif_file"])
				if _, err := os.Stat(filepath.Join(tmp, p)); err != nil {
					t.Errorf("step %s uploads %s, which the run steps did not write: %v", s.uses, p, err)
				}
			}
		}
		return code
	}
	for _, shard := range w.matrix["shard"] {
		if code := run("shard", shard); code != 0 {
			t.Fatalf("shard %s: exit %d, want 0 (findings do not fail a shard)", shard, code)
		}
	}
	if code := run("merge", ""); code != 3 {
		t.Fatalf("merge: exit %d, want 3: the kernels' bugs are confirmed and there is no baseline", code)
	}
	if _, err := os.Stat(filepath.Join(tmp, ".precog-times", "tests.json")); err != nil {
		t.Errorf("merge kept no test times for the next night: %v", err)
	}
	var sum struct {
		Failing []string `json:"failing"`
		Merged  []string `json:"merged"`
	}
	data, err := os.ReadFile(filepath.Join(tmp, "precog-results", "merged", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Failing) == 0 || strings.Join(sum.Merged, " ") != "1/2 2/2" {
		t.Errorf("merged summary: failing %v, merged %v; want failing findings from shards 1/2 and 2/2", sum.Failing, sum.Merged)
	}

	// Accept the findings, as a team would by committing a baseline: the
	// next merge passes.
	var out bytes.Buffer
	wb := exec.Command(filepath.Join(bin, "precog"), "merge", "-o", filepath.Join(tmp, "accepted"), "-write-baseline", filepath.Join(tmp, ".precog-baseline"),
		filepath.Join(tmp, "precog-results", "precog-shard-1"), filepath.Join(tmp, "precog-results", "precog-shard-2"))
	wb.Stdout, wb.Stderr = &out, &out
	if err := wb.Run(); err != nil && wb.ProcessState.ExitCode() != 3 {
		t.Fatalf("writing the baseline: %v\n%s", err, out.String())
	}
	if code := run("merge", ""); code != 0 {
		t.Errorf("merge with the baseline: exit %d, want 0", code)
	}
}
