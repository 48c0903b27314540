//go:build !unix

package record

import "errors"

// lockFile fails where precog has no file locks: builds go to the run's
// own directory, as without a link cache.
func lockFile(name string) (unlock func(), err error) {
	return nil, errors.New("no file locks on this system")
}
