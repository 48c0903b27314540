package results

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/precog-dev/precog/detect/finding"
)

// A Dir is a results directory as Read reads it.
type Dir struct {
	Path     string
	Summary  *Summary
	Findings []finding.Finding
	Tests    []Test
}

// Read reads the results directory at path.
func Read(path string) (*Dir, error) {
	d := &Dir{Path: path, Summary: new(Summary)}
	data, err := os.ReadFile(filepath.Join(path, SummaryFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a results directory: it has no %s (precog test -ci writes one)", path, SummaryFile)
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, d.Summary); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(path, SummaryFile), err)
	}
	if d.Summary.Version != Version {
		return nil, fmt.Errorf("%s: version %d, want %d", filepath.Join(path, SummaryFile), d.Summary.Version, Version)
	}
	if data, err = os.ReadFile(filepath.Join(path, TestsFile)); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &d.Tests); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(path, TestsFile), err)
	}
	if data, err = os.ReadFile(filepath.Join(path, FindingsFile)); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var f finding.Finding
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", filepath.Join(path, FindingsFile), n, err)
		}
		d.Findings = append(d.Findings, f)
	}
	return d, sc.Err()
}

// Merge unions the results of a job's shards: the findings (one per ID,
// with the tests of every shard that exposed it and the strongest status,
// as finding.Merge folds the tests of one run), the tests, the totals and
// the notes. It refuses two directories of the same shard and a test that
// ran in two shards: either would count its reports twice. A shard
// missing from the set is a note. The verdict (Summary.Judge) is left to
// the caller.
func Merge(dirs []*Dir) (*Summary, []finding.Finding, []Test, error) {
	if len(dirs) == 0 {
		return nil, nil, nil, errors.New("no results directories to merge")
	}
	first := dirs[0].Summary
	m := &Summary{
		Version: Version, Dir: first.Dir, Patterns: first.Patterns, RunsEach: first.RunsEach,
		FailOn: first.FailOn, Statuses: map[finding.Status]int{},
	}
	shardOf := make(map[string]string) // shard -> its directory
	ranIn := make(map[string]string)   // test -> the directory it ran in
	var fs []finding.Finding
	var tests []Test
	n := 0 // the shards' n, if they are shards
	for _, d := range dirs {
		s := d.Summary
		name := s.Shard
		if name == "" {
			name = d.Path
		} else if other, dup := shardOf[name]; dup {
			return nil, nil, nil, fmt.Errorf("%s and %s are both shard %s", other, d.Path, name)
		}
		shardOf[name] = d.Path
		if s.Shard != "" {
			var i, k int
			fmt.Sscanf(s.Shard, "%d/%d", &i, &k)
			n = max(n, k)
		}
		m.Merged = append(m.Merged, name)
		if !slices.Equal(s.Patterns, m.Patterns) || s.Dir != m.Dir {
			m.Notes = append(m.Notes, fmt.Sprintf("%s ran %s in %s, not %s in %s", d.Path, strings.Join(s.Patterns, " "), s.Dir, strings.Join(m.Patterns, " "), m.Dir))
		}
		for _, t := range d.Tests {
			if other, dup := ranIn[t.Key()]; dup {
				return nil, nil, nil, fmt.Errorf("test %s ran in both %s and %s", t.Key(), other, d.Path)
			}
			ranIn[t.Key()] = d.Path
		}
		tests = append(tests, d.Tests...)
		fs = append(fs, d.Findings...)
		m.Validated = m.Validated || s.Validated
		m.Packages = max(m.Packages, s.Packages) // every shard instruments every package
		m.Tests += s.Tests
		m.Runs += s.Runs
		m.FailedRuns += s.FailedRuns
		m.Skipped += s.Skipped
		m.Alone += s.Alone
		m.NotRecorded += s.NotRecorded
		m.RecordStopped += s.RecordStopped
		if s.NotRecorded+s.RecordStopped > 0 {
			// Shards cut by different bounds (one by -record-budget,
			// another by its -deadline's share) are summed under a name
			// that covers both.
			switch limit := cmp.Or(s.RecordLimit, "-record-budget"); {
			case m.RecordLimit == "":
				m.RecordLimit = limit
			case m.RecordLimit != limit:
				m.RecordLimit = "the shards' recording bounds"
			}
		}
		m.Streamed += s.Streamed
		m.Stopped += s.Stopped
		for _, b := range s.Broken { // every shard instruments every package
			if !slices.Contains(m.Broken, b) {
				m.Broken = append(m.Broken, b)
			}
		}
		for _, u := range s.Unlisted { // every shard lists every package's tests
			if !slices.Contains(m.Unlisted, u) {
				m.Unlisted = append(m.Unlisted, u)
			}
		}
		for _, n := range s.NotBuilt { // each shard's own build: a package once, with the first shard's bound
			pkg, _, _ := strings.Cut(n, ":")
			if !slices.ContainsFunc(m.NotBuilt, func(l string) bool { return strings.HasPrefix(l, pkg+":") }) {
				m.NotBuilt = append(m.NotBuilt, n)
			}
		}
		m.Targeted += s.Targeted
		m.Reversed += s.Reversed
		m.Events += s.Events
		m.Reports += s.Reports
		m.RecordNs += s.RecordNs
		m.DetectNs += s.DetectNs
		m.ValidateNs += s.ValidateNs
		if c := s.CFP; c != nil {
			if m.CFP == nil {
				m.CFP = new(CFP)
			}
			m.CFP.add(c)
		}
		for _, id := range s.VetIDs {
			if !slices.Contains(m.VetIDs, id) {
				m.VetIDs = append(m.VetIDs, id)
			}
		}
		m.Notes = append(m.Notes, s.Notes...)
		m.InternalErrors = append(m.InternalErrors, s.InternalErrors...)
		if s.Error != "" {
			m.Error = strings.TrimPrefix(m.Error+"; ", "; ") + name + ": " + s.Error
		}
		if s.Interrupted != "" {
			m.Interrupted = strings.TrimPrefix(m.Interrupted+"; ", "; ") + name + ": " + s.Interrupted
		}
	}
	for i := 1; i <= n; i++ {
		if _, ok := shardOf[fmt.Sprintf("%d/%d", i, n)]; !ok {
			m.Notes = append(m.Notes, fmt.Sprintf("shard %d/%d is missing: its tests did not run", i, n))
		}
	}
	for i := range fs {
		// Merge keeps the first finding's status unless a later one is
		// stronger; the baseline is judged again.
		fs[i].Baselined = false
	}
	fs = finding.Merge(fs)
	m.Findings = len(fs)
	byID := make(map[string]finding.Status)
	var run []finding.Finding
	for _, f := range fs {
		m.Statuses[f.Status]++
		byID[f.ID] = f.Status
		if f.Analyzer == "" {
			run = append(run, f)
		}
	}
	m.RunFindings, m.RunSites = len(run), groups(run)
	if m.VetIDs != nil {
		// The shards analysed the same packages: a candidate is in each,
		// counted once, with its merged status.
		m.Vet = make(map[finding.Status]int)
		for _, id := range m.VetIDs {
			m.Vet[byID[id]]++
		}
	}
	m.Duplication = finding.Duplication(run)
	sortTests(tests)
	return m, fs, tests, nil
}

// CopyRepro copies the schedule of each confirmed finding of fs from the
// first directory that has it into out's repro directory, and returns
// the IDs it copied.
func CopyRepro(out string, dirs []*Dir, fs []finding.Finding) (map[string]bool, error) {
	copied := make(map[string]bool)
	for _, f := range fs {
		if f.Status != finding.Confirmed {
			continue
		}
		for _, d := range dirs {
			data, err := os.ReadFile(filepath.Join(d.Path, ReproDir, f.ID+".json"))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if err := os.MkdirAll(filepath.Join(out, ReproDir), 0o777); err != nil {
				return nil, err
			}
			if err := os.WriteFile(filepath.Join(out, ReproDir, f.ID+".json"), data, 0o666); err != nil {
				return nil, err
			}
			copied[f.ID] = true
			break
		}
	}
	return copied, nil
}
