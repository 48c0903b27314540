// Package pool sums with an errgroup, so that instrumenting the dependency
// golang.org/x/sync/errgroup (-instrument-deps) has something to record.
package pool

import "golang.org/x/sync/errgroup"

// Sum adds xs on one goroutine per element.
func Sum(xs []int) (int, error) {
	var g errgroup.Group
	parts := make([]int, len(xs))
	for i, x := range xs {
		g.Go(func() error {
			parts[i] = x
			return nil
		})
	}
	err := g.Wait()
	total := 0
	for _, p := range parts {
		total += p
	}
	return total, err
}
