//go:build !unix

package record

import (
	"context"
	"errors"
)

// lockFile fails where precog has no file locks: builds go to the run's
// own directory, as without a link cache.
func lockFile(ctx context.Context, name string) (unlock func(), err error) {
	return nil, errors.New("no file locks on this system")
}
