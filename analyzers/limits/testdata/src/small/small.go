// Package small stays within every budget.
package small

var n int

func Inc() { go func() { n++ }() }
