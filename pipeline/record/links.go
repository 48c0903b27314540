package record

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The link cache keeps the test binaries precog builds from one run to the
// next, in a directory of precog's cache (Options.LinkDir): the go command
// links a test binary again whenever go test -c writes it to a new path,
// a third of a core-second per package (120 kernel packages: 39 s), but
// leaves one whose build ID says it is up to date where -o already holds
// it (0.7 s for the same 120). Each build goes to a directory of its own
// per module directory and build flags, so that an edit relinks only the
// packages it changed and the cache holds one set of binaries per module
// checkout and kind of build, not one per edit; the binaries the run uses
// are hard links to them (copies on another file system), which a later
// build's rewrite, a rename or a new file, leaves as they were.

// linkKey names the directory of the link cache for builds in dir with the
// build flags: the -overlay flag counts only as present, since its file,
// content addressed, changes with every edit of the code under test, and
// a build with another overlay relinks what it changes.
func linkKey(dir string, build []string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	h := sha256.New()
	io.WriteString(h, abs)
	for _, f := range build {
		if strings.HasPrefix(f, "-overlay=") {
			f = "-overlay"
		}
		io.WriteString(h, "\x00"+f)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// openLinks returns the link cache's directory for builds in dir with the
// build flags, created and locked against other precog processes until
// unlock is called (waiting for their lock until ctx is done), and marked
// as used now, for the cache's trimming.
func openLinks(ctx context.Context, links, dir string, build []string) (key string, unlock func(), err error) {
	key = filepath.Join(links, linkKey(dir, build))
	if err := os.MkdirAll(key, 0o777); err != nil {
		return "", nil, err
	}
	unlock, err = lockFile(ctx, filepath.Join(key, "lock"))
	if err != nil {
		return "", nil, err
	}
	now := time.Now()
	os.Chtimes(key, now, now) // best effort: a failure only makes trimming earlier
	return key, unlock, nil
}

// linkOrCopy makes dst the file src: a hard link, or a copy where the two
// are on different file systems.
func linkOrCopy(src, dst string) error {
	os.Remove(dst)
	if os.Link(src, dst) == nil {
		return nil
	}
	if err := copyFile(src, dst); err != nil {
		return err
	}
	return os.Chmod(dst, 0o755)
}

// LinkDir is the link cache's directory in precog's cache directory cache
// (an absolute path, as instrument.CacheDir returns).
func LinkDir(cache string) string { return filepath.Join(cache, "link") }

// TempBinDir makes a temporary directory for a run's test binaries (the
// caller removes it): in the link cache links, if not empty, so that the
// binaries are hard links to the cache's rather than copies, as a
// temporary directory on another file system would need; its name then
// starts with ".tmp-", which the cache's trimming removes once a crashed
// run left it for days.
func TempBinDir(links, pattern string) (string, error) {
	if links == "" {
		return os.MkdirTemp("", pattern)
	}
	if err := os.MkdirAll(links, 0o777); err != nil {
		return "", err
	}
	return os.MkdirTemp(links, ".tmp-"+pattern)
}
