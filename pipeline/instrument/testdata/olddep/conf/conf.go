// Package conf encodes its settings with gopkg.in/yaml.v3, whose go.mod
// (go 1.16 or none) predates graph pruning and generics: instrumenting it
// (-instrument-deps) needs a go.sum entry of a requirement of it that a
// plain build never reads, and a newer go line in its copy.
package conf

import "gopkg.in/yaml.v3"

// Settings are the settings.
type Settings struct {
	Workers int `yaml:"workers"`
}

// Encode returns s as YAML.
func Encode(s Settings) (string, error) {
	b, err := yaml.Marshal(s)
	return string(b), err
}
