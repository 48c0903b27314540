// Package bad does not compile: Instrument must say so in one line.
package bad

func Count() int { return "one" }
