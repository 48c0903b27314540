package genvector

// The RIGHT version, which neither command may report: the copy reads the
// length and the elements in one critical section.

// Snapshot copies the elements of v under one lock.
func (v *Vec[T]) Snapshot() []T {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]T(nil), v.items...)
}
