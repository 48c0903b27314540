// Package spawnuse: a closure handed to another package's spawner gets a
// context of its own, through the spawner's SpawnsFact.
package spawnuse

import (
	"joinlib"
	"spawnlib"
)

func Use(r *spawnlib.Runner) { // want `^ctx: caller$`
	spawnlib.Spawn(func() {})           // want `^ctx: detached function Use\$1$`
	spawnlib.SpawnNamed("w", func() {}) // want `^ctx: detached function Use\$2$`
	joinlib.Both(func() {}, func() {})  // want `^ctx: detached function Use\$3 joined$` `^ctx: detached function Use\$4 joined$`
	spawnlib.Through(func() {})         // want `^ctx: detached function Use\$5$`
	r.Go(func() {})                     // want `^ctx: detached function Use\$6$`
	spawnlib.Call(func() {})            // want `^ctx: caller$`
}
