package rt

import "embed"

// Source holds rt's source files, which the instrumenter writes out as the
// package github.com/precog-dev/precog/shim/rt of the injected shim module.
// The pattern also matches _test.go files; writers skip them.
//
//go:embed *.go
var Source embed.FS
