module github.com/precog-dev/precog/bench/kernels

go 1.26.0

require github.com/precog-dev/precog v0.0.0

require (
	github.com/sourcegraph/conc v0.3.0 // indirect
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
)

// The harness measures the precog of this repository.
replace github.com/precog-dev/precog => ../..
