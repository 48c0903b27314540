// Package lib2 is required by ancientlib's go.mod alone.
package lib2

// Add returns a+b.
func Add(a, b int) int { return a + b }
