package shim

import "embed"

// Source holds the shim's source files, which the instrumenter writes out as
// the module github.com/precog-dev/precog/shim (go 1.22). The patterns also
// match _test.go files; writers skip them.
//
//go:embed *.go *.s trace/*.go
var Source embed.FS
