package results

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/precog-dev/precog/detect/finding"
)

// A Baseline is the set of finding IDs a team has accepted: findings it
// knows of and does not want a nightly job to fail on (yet).
//
// The file has one ID per line. A line may go on after the ID, separated
// by white space, with anything (WriteBaseline puts the finding's kind,
// status, place and message there); blank lines and lines starting with #
// are comments. Edit it by hand: delete a line when the bug is fixed, add
// an ID from a report to accept its finding.
type Baseline map[string]bool

// BaselineHeader starts a file WriteBaseline writes.
const BaselineHeader = `# precog baseline: the IDs of accepted findings, one per line. precog test
# -baseline FILE lists these findings but does not fail on them. Text after
# an ID, blank lines and lines starting with # are ignored.
`

// ReadBaseline reads a baseline file. An error names the file and line.
func ReadBaseline(path string) (Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("baseline %s does not exist (-write-baseline %s writes one)", path, path)
		}
		return nil, fmt.Errorf("reading baseline: %w", err)
	}
	b := make(Baseline)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, _, _ := strings.Cut(strings.Join(strings.Fields(line), " "), " ")
		if !validID(id) {
			return nil, fmt.Errorf("baseline %s:%d: want a finding ID (12 hex digits) at the start of the line, got %q", path, n, id)
		}
		b[id] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading baseline %s: %w", path, err)
	}
	return b, nil
}

// validID reports whether id has the shape of finding.ID's IDs.
func validID(id string) bool {
	return len(id) == 12 && strings.Trim(id, "0123456789abcdef") == ""
}

// WriteBaseline writes a baseline that accepts every finding of fs, one
// line each with its kind, status, place (relative to dir) and message.
func WriteBaseline(path, dir string, fs []finding.Finding) error {
	var b bytes.Buffer
	b.WriteString(BaselineHeader)
	for _, f := range fs {
		at := "-"
		if len(f.Sites) > 0 && f.Sites[0].File != "" {
			at = fmt.Sprintf("%s:%d", relPath(dir, f.Sites[0].File), f.Sites[0].Line)
		}
		msg, _, _ := strings.Cut(f.Message, "\n")
		fmt.Fprintf(&b, "%s %s %s %s: %s\n", f.ID, f.Kind, f.Status, at, msg)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o666); err != nil {
		return fmt.Errorf("writing baseline: %w", err)
	}
	return nil
}
