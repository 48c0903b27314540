// Package lib is a dependency of ancient whose own requirement
// (ancientlib2) only its go.mod lists, as a go1.16 main module allows and
// a go1.17 one does not.
package lib

import "precog.example/ancientlib2"

// Add returns a+b.
func Add(a, b int) int { return lib2.Add(a, b) }
