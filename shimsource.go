// Package precog holds the source of the shim module that precog injects
// into the build of the code under test: package shim (the recording
// runtime) and its packages shim/trace and shim/plan (the formats) and
// shim/rt, shim/rthttp, shim/rtnet and shim/rtpipe (helpers rewritten
// code calls). The instrumenter writes it into its cache as the module
// github.com/precog-dev/precog/shim.
//
// It sits at the module root because a //go:embed pattern cannot reach
// outside its package's directory, and the driver must not import package
// shim to get at the files: the shim's init starts recording.
package precog

import "embed"

// ShimSource holds the shim module's files under "shim/". The patterns also
// match _test.go files; writers skip them.
//
//go:embed shim/*.go shim/*.s shim/trace/*.go shim/plan/*.go shim/rt/*.go shim/rthttp/*.go shim/rtnet/*.go shim/rtpipe/*.go
var ShimSource embed.FS
