// This file makes the package's bodyless declarations (clock.go's
// nanotime) legal on every architecture: with an assembly file present,
// the compiler does not require Go bodies.
