package sarif

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"unicode/utf16"
	"unicode/utf8"
)

// SrcRoot is the uriBaseId of files under the source root, as GitHub code
// scanning names it.
const SrcRoot = "%SRCROOT%"

// A Locator turns file positions into SARIF locations, for precog's
// commands that write SARIF logs.
type Locator struct {
	root  string
	files map[string][]byte // file contents, read once, to count UTF-16 columns
}

// NewLocator returns a Locator for files under the source root root.
func NewLocator(root string) *Locator {
	return &Locator{root: root, files: make(map[string][]byte)}
}

// BaseIDs returns the run's originalUriBaseIds (§3.14.14): SrcRoot as the
// root's file URI.
func (l *Locator) BaseIDs() map[string]ArtifactLocation {
	return map[string]ArtifactLocation{
		SrcRoot: {URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(l.root) + "/"}).String()},
	}
}

// Artifact returns the artifact location of file: relative to SrcRoot for
// a file under the root, an absolute file URI for others (the standard
// library, the module cache).
func (l *Locator) Artifact(file string) ArtifactLocation {
	if rel, err := filepath.Rel(l.root, file); err == nil && filepath.IsLocal(rel) {
		return ArtifactLocation{URI: (&url.URL{Path: filepath.ToSlash(rel)}).String(), URIBaseID: SrcRoot}
	}
	return ArtifactLocation{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(file)}).String()}
}

// Column converts the 1-based byte column col of line in file to 1-based
// UTF-16 code units, the column kind that code-scanning services expect.
// It keeps the byte column when the file cannot be read, and 0 (no
// column) stays 0.
func (l *Locator) Column(file string, line, col int) int {
	if col <= 0 {
		return 0
	}
	data, ok := l.files[file]
	if !ok {
		data, _ = os.ReadFile(file)
		l.files[file] = data
	}
	text, ok := nthLine(data, line)
	if !ok || col-1 > len(text) {
		return col
	}
	n := 1
	for prefix := text[:col-1]; len(prefix) > 0; {
		r, size := utf8.DecodeRune(prefix)
		n += utf16.RuneLen(r)
		prefix = prefix[size:]
	}
	return n
}

// nthLine returns the 1-based line n of data, without its newline.
func nthLine(data []byte, n int) ([]byte, bool) {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return nil, false
		}
		data = data[j+1:]
	}
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	return data, n >= 1
}

// WriteFile writes log to file, taken relative to dir, or to stdout if file
// is "-".
func WriteFile(stdout io.Writer, dir, file string, log *Log) error {
	if file == "-" {
		return log.Write(stdout)
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	var buf bytes.Buffer
	if err := log.Write(&buf); err != nil {
		return err
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o666); err != nil {
		return fmt.Errorf("writing SARIF log: %w", err)
	}
	return nil
}
