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
)

var self struct {
	once sync.Once
	sum  string
	err  error
}

// Sum returns the hex SHA-256 of the running executable, computed once.
func Sum() (string, error) {
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
