module github.com/precog-dev/precog/gclplugin

go 1.26.0

require (
	github.com/golangci/plugin-module-register v0.1.2
	github.com/precog-dev/precog v0.0.0-00010101000000-000000000000
	golang.org/x/tools v0.52.0
)

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)

// The plugin is built and tested against the precog beside it.
replace github.com/precog-dev/precog => ../
