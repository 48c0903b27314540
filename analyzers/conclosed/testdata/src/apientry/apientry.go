// Package apientry keeps a registry that an exported function fills and
// another one iterates, neither safe for concurrent use (goose's
// SetGlobalMigrations and collectGoMigrations). Its tests call the filler
// one after another and never the iterator: in the test binary the
// iterator does not run, and for the package's users both are calls of
// one caller, so nothing is reported; a goroutine that the package starts
// to fill the registry runs while its caller lists it: reported.
package apientry

import "sort"

var registry = map[int]string{}

// Register adds name as version v.
func Register(v int, name string) { registry[v] = name }

// RegisterLater adds name as version v on a goroutine of its own.
func RegisterLater(v int, name string) {
	go func() { registry[v] = name }()
}

// Reset empties the registry.
func Reset() { registry = map[int]string{} }

// Names lists the registered names.
func Names() []string { return collect(registry) }

func collect(m map[int]string) []string {
	var names []string
	for _, n := range m { // want `m is iterated here while func literal in RegisterLater may write it concurrently`
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
