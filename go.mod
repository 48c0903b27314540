module github.com/precog-dev/precog

go 1.26.0

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	github.com/sourcegraph/conc v0.3.0
	golang.org/x/mod v0.42.0
	golang.org/x/tools v0.52.0
)

require (
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)
