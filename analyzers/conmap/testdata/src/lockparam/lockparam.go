// Package lockparam is kine's ttl.Run: one mutex, made by Run, passed by
// pointer to the helpers that lock it around the map they are handed;
// another caller (a test's) hands save a mutex and map of its own, so
// save's Lock names its parameter rather than one mutex. Viewed from
// Run's calls, save holds Run's mutex, as handle does: not reported.
// Two goroutines handing save2 two mutexes around one map are (a miss
// before: save2 held its parameter on both sides).
package lockparam

import "sync"

type entry struct{ n int }

func Run(keys []string) {
	var mu sync.RWMutex
	store := map[string]*entry{}
	go func() {
		for handle(&mu, store) {
		}
	}()
	go func() {
		for _, k := range keys {
			save(&mu, store, k)
		}
	}()
}

func handle(mu *sync.RWMutex, store map[string]*entry) bool {
	mu.Lock()
	defer mu.Unlock()
	delete(store, "x")
	return len(store) > 0
}

func save(mu *sync.RWMutex, store map[string]*entry, key string) {
	mu.Lock()
	defer mu.Unlock()
	store[key] = &entry{}
}

// Seed saves into a map of its own under a mutex of its own.
func Seed() {
	var mu sync.RWMutex
	store := map[string]*entry{}
	save(&mu, store, "a")
}

func save2(mu *sync.Mutex, store map[string]int, key string) {
	mu.Lock()
	defer mu.Unlock()
	store[key]++ // want `concurrent map read and map write: store is written here and read by save2 with no common lock`
}

// Mixed hands two mutexes around one map.
func Mixed(keys []string) {
	var a, b sync.Mutex
	store := map[string]int{}
	for _, k := range keys {
		go func() { save2(&a, store, k) }()
		go func() { save2(&b, store, k) }()
	}
}
