module github.com/precog-dev/precog/bench/explain

go 1.26.0

require github.com/precog-dev/precog v0.0.0

// The harness measures the precog of this repository.
replace github.com/precog-dev/precog => ../..
