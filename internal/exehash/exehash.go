// Package exehash hashes the running executable. precog's caches key what
// its code computes (instrumented files, analysis facts) by it, and its
// -V=full prints it for go vet, which keys vet results by it the same way:
// a rebuilt precog is a new key, whatever its version says.
package exehash

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"sync"
	"sync/atomic"
)

var self struct {
	once sync.Once
	sum  string
	err  error
}

// stand is the hash that Use gave, if any.
var stand atomic.Pointer[string]

// Sum returns the hex SHA-256 of the running executable, computed once, or
// what Use gave in its stead.
func Sum() (string, error) {
	if s := stand.Load(); s != nil {
		return *s, nil
	}
	self.once.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			self.err = err
			return
		}
		f, err := os.Open(exe)
		if err != nil {
			self.err = err
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			self.err = err
			return
		}
		self.sum = hex.EncodeToString(h.Sum(nil))
	})
	return self.sum, self.err
}

// Use makes Sum return sum from now on, in this process. It is for test
// binaries (internal/testcache): each package's test binary is an
// executable of its own, with a hash of its own, though the precog code in
// them that fills the caches is the same, so a cache shared by the
// packages' tests was filled anew by each of them (the standard library's
// facts analysed again under the race detector in each process). sum must
// then identify that code as surely as the executable's hash does.
func Use(sum string) { stand.Store(&sum) }
