package main

import (
	"sync"
	"sync/atomic"
	"testing"

	precog_shim "github.com/precog-dev/precog/shim"
	precog_rt "github.com/precog-dev/precog/shim/rt"
)

// Each benchmark has two variants: plain is the operation as written, shim
// is the operation as the instrumenter rewrites it. The harness (main.go)
// runs plain in a plain binary and in a -race binary, and shim in a plain
// binary with PRECOG_TRACE set (recording) and without (shim off).
//
// Sites are arbitrary: nothing reads a site table here.
//
// The loops count with a local variable instead of b.Loop: under -race,
// b.Loop's bookkeeping (b.loop.i and b.loop.n, in memory) is instrumented
// too, and would add two or three race-checked accesses to every iteration
// of the plain variant. For the same reason the access benchmarks make
// eight accesses per iteration (to the eight words of one object, as code
// touching a struct's fields does); the harness divides by eight.

var (
	words = new([8]uint64) // the shared 8-byte locations of the access benchmarks
	wide  = new([8192]uint64)
	sink  uint64
	mu    sync.Mutex
	ch    = make(chan int, 1)
	wg    sync.WaitGroup
	nop   = func() {}
	start = make(chan struct{})
	pool  = sync.Pool{New: func() any { return new([64]byte) }}
	smap  sync.Map
	empty = make(chan int)
	count atomic.Int64
)

// BenchmarkRead is eight 8-byte loads of shared variables.
func BenchmarkRead(b *testing.B) {
	w := words
	b.Run("plain", func(b *testing.B) {
		var s uint64
		for i, n := 0, b.N; i < n; i++ {
			s += w[0] + w[1] + w[2] + w[3] + w[4] + w[5] + w[6] + w[7]
		}
		sink = s
	})
	b.Run("shim", func(b *testing.B) {
		var precog_g precog_shim.Local
		var s uint64
		for i, n := 0, b.N; i < n; i++ {
			s += *precog_shim.RL(&precog_g, 1, &w[0]) + *precog_shim.RL(&precog_g, 1, &w[1]) + *precog_shim.RL(&precog_g, 1, &w[2]) + *precog_shim.RL(&precog_g, 1, &w[3]) +
				*precog_shim.RL(&precog_g, 1, &w[4]) + *precog_shim.RL(&precog_g, 1, &w[5]) + *precog_shim.RL(&precog_g, 1, &w[6]) + *precog_shim.RL(&precog_g, 1, &w[7])
		}
		sink = s
	})
}

// BenchmarkReadSites is eight 8-byte loads of one shared variable at eight
// sites, as code re-reads a global or a node's header in the small
// functions one loop iteration calls (ristretto/z's maxKeys and pageSize):
// with the repeat filter on, each read after the first iteration repeats
// the read at its site.
func BenchmarkReadSites(b *testing.B) {
	w := words
	b.Run("plain", func(b *testing.B) {
		var s uint64
		for i, n := 0, b.N; i < n; i++ {
			s += w[0] + w[0] + w[0] + w[0] + w[0] + w[0] + w[0] + w[0]
		}
		sink = s
	})
	b.Run("shim", func(b *testing.B) {
		var precog_g precog_shim.Local
		var s uint64
		for i, n := 0, b.N; i < n; i++ {
			s += *precog_shim.RL(&precog_g, 1, &w[0]) + *precog_shim.RL(&precog_g, 2, &w[0]) + *precog_shim.RL(&precog_g, 3, &w[0]) + *precog_shim.RL(&precog_g, 4, &w[0]) +
				*precog_shim.RL(&precog_g, 5, &w[0]) + *precog_shim.RL(&precog_g, 6, &w[0]) + *precog_shim.RL(&precog_g, 7, &w[0]) + *precog_shim.RL(&precog_g, 8, &w[0])
		}
		sink = s
	})
}

// BenchmarkReadMiss is eight 8-byte loads of shared variables that the
// goroutine has not read for a while (consecutive words of a 64 KiB array,
// in turn), so that with the repeat filter on every read is recorded: what
// a recorded read costs as shipped, the filter's test and note included.
func BenchmarkReadMiss(b *testing.B) {
	w := wide
	b.Run("plain", func(b *testing.B) {
		var s uint64
		for i, n := 0, b.N; i < n; i++ {
			j := i * 8 % len(w)
			s += w[j] + w[j+1] + w[j+2] + w[j+3] + w[j+4] + w[j+5] + w[j+6] + w[j+7]
		}
		sink = s
	})
	b.Run("shim", func(b *testing.B) {
		var precog_g precog_shim.Local
		var s uint64
		for i, n := 0, b.N; i < n; i++ {
			j := i * 8 % len(w)
			s += *precog_shim.RL(&precog_g, 1, &w[j]) + *precog_shim.RL(&precog_g, 1, &w[j+1]) + *precog_shim.RL(&precog_g, 1, &w[j+2]) + *precog_shim.RL(&precog_g, 1, &w[j+3]) +
				*precog_shim.RL(&precog_g, 1, &w[j+4]) + *precog_shim.RL(&precog_g, 1, &w[j+5]) + *precog_shim.RL(&precog_g, 1, &w[j+6]) + *precog_shim.RL(&precog_g, 1, &w[j+7])
		}
		sink = s
	})
}

// BenchmarkCall is eight calls of a small function that makes one read of
// a shared variable, as real code calls getters: the shim variant as the
// rewriter emits it for a function of the package that takes its caller's
// Local (rewrite.LocalCallees), so the goroutine is looked up once.
func BenchmarkCall(b *testing.B) {
	w := words
	b.Run("plain", plainGets)
	b.Run("shim", func(b *testing.B) {
		var precog_g precog_shim.Local
		var s uint64
		for i, n := 0, b.N; i < n; i++ {
			s += getL(&precog_g, &w[0]) + getL(&precog_g, &w[1]) + getL(&precog_g, &w[2]) + getL(&precog_g, &w[3]) +
				getL(&precog_g, &w[4]) + getL(&precog_g, &w[5]) + getL(&precog_g, &w[6]) + getL(&precog_g, &w[7])
		}
		sink = s
	})
}

// plainGets is the plain variant of BenchmarkCall and BenchmarkCallOwn:
// eight calls of get.
func plainGets(b *testing.B) {
	w := words
	var s uint64
	for i, n := 0, b.N; i < n; i++ {
		s += get(&w[0]) + get(&w[1]) + get(&w[2]) + get(&w[3]) + get(&w[4]) + get(&w[5]) + get(&w[6]) + get(&w[7])
	}
	sink = s
}

// BenchmarkCallOwn is BenchmarkCall with the function declaring a Local
// of its own, as the rewriter emits a function that cannot take its
// caller's (one used as a func value or through an interface): one
// goroutine lookup per call.
func BenchmarkCallOwn(b *testing.B) {
	w := words
	b.Run("plain", plainGets)
	b.Run("shim", func(b *testing.B) {
		var s uint64
		for i, n := 0, b.N; i < n; i++ {
			s += getOwn(&w[0]) + getOwn(&w[1]) + getOwn(&w[2]) + getOwn(&w[3]) + getOwn(&w[4]) + getOwn(&w[5]) + getOwn(&w[6]) + getOwn(&w[7])
		}
		sink = s
	})
}

//go:noinline
func get(p *uint64) uint64 { return *p }

//go:noinline
func getL(precog_g *precog_shim.Local, p *uint64) uint64 { return *precog_shim.RL(precog_g, 1, p) }

//go:noinline
func getOwn(p *uint64) uint64 {
	var precog_g precog_shim.Local
	return *precog_shim.RL(&precog_g, 1, p)
}

// BenchmarkWrite is eight 8-byte stores to shared variables.
func BenchmarkWrite(b *testing.B) {
	w := words
	b.Run("plain", func(b *testing.B) {
		for i, n := uint64(0), uint64(b.N); i < n; i++ {
			w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7] = i, i, i, i, i, i, i, i
		}
	})
	b.Run("shim", func(b *testing.B) {
		var precog_g precog_shim.Local
		for i, n := uint64(0), uint64(b.N); i < n; i++ {
			precog_shim.WN(&precog_g, 2, &w[0], i)
			precog_shim.WN(&precog_g, 2, &w[1], i)
			precog_shim.WN(&precog_g, 2, &w[2], i)
			precog_shim.WN(&precog_g, 2, &w[3], i)
			precog_shim.WN(&precog_g, 2, &w[4], i)
			precog_shim.WN(&precog_g, 2, &w[5], i)
			precog_shim.WN(&precog_g, 2, &w[6], i)
			precog_shim.WN(&precog_g, 2, &w[7], i)
		}
	})
}

// BenchmarkLock is an uncontended Mutex Lock and Unlock.
func BenchmarkLock(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		for i, n := 0, b.N; i < n; i++ {
			mu.Lock()
			mu.Unlock()
		}
	})
	b.Run("shim", func(b *testing.B) {
		var precog_g precog_shim.Local
		for i, n := 0, b.N; i < n; i++ {
			precog_shim.LockL(&precog_g, 3, &mu)
			precog_shim.UnlockL(&precog_g, 4, &mu)
		}
	})
}

// BenchmarkChan is a send and a receive on a buffered channel.
func BenchmarkChan(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		for i, n := 0, b.N; i < n; i++ {
			ch <- 1
			<-ch
		}
	})
	b.Run("shim", func(b *testing.B) {
		for i, n := 0, b.N; i < n; i++ {
			precog_shim.Send(5, ch, 1)
			precog_shim.Recv(6, ch)
		}
	})
}

// BenchmarkGoJoin starts a goroutine and waits for it with a WaitGroup.
func BenchmarkGoJoin(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		for i, n := 0, b.N; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				nop()
			}()
			wg.Wait()
		}
	})
	b.Run("shim", func(b *testing.B) {
		for i, n := 0, b.N; i < n; i++ {
			precog_shim.WGAdd(7, &wg, 1)
			id := precog_shim.Go(8)
			go func() {
				precog_shim.Begin(id)
				defer precog_shim.End()
				defer precog_shim.WGDone(9, &wg)
				nop()
			}()
			precog_shim.WGWait(10, &wg)
		}
	})
}

// BenchmarkParallelLock is an uncontended Lock and Unlock in every
// goroutine of RunParallel (one per P: run it with -test.cpu=2), each on
// its own mutex: the shim's variant contends only on the global seq
// counter, which every sync event takes.
func BenchmarkParallelLock(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			var m sync.Mutex
			for pb.Next() {
				m.Lock()
				m.Unlock()
			}
		})
	})
	b.Run("shim", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			var m sync.Mutex
			for pb.Next() {
				precog_shim.Lock(11, &m)
				precog_shim.Unlock(12, &m)
			}
		})
	})
}

// BenchmarkParallelLoad is an atomic load in every goroutine of
// RunParallel (one per P: run it with -test.cpu=2), each of its own
// variable, as x/sync/syncmap's goroutines load sync.Map entries: the
// shim's variant shares only the global seq counter, which an atomic load
// reads without incrementing it.
func BenchmarkParallelLoad(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			var x int64
			var s int64
			for pb.Next() {
				s += atomic.LoadInt64(&x)
			}
			sink += uint64(s)
		})
	})
	b.Run("shim", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			var x int64
			var s int64
			for pb.Next() {
				s += precog_shim.AtomicLoadInt64(13, &x)
			}
			sink += uint64(s)
		})
	})
}

// BenchmarkAtomic is an atomic.Int64 Load and Store, as pond's workers
// and x/sync/syncmap's goroutines make them: the most frequent sync events
// of those programs.
func BenchmarkAtomic(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		for i, n := 0, b.N; i < n; i++ {
			count.Store(count.Load() + 1)
		}
	})
	b.Run("shim", func(b *testing.B) {
		var precog_g precog_shim.Local
		for i, n := 0, b.N; i < n; i++ {
			precog_rt.Int64Store(&precog_g, 16, &count, precog_rt.Int64Load(&precog_g, 15, &count)+1)
		}
	})
}

// BenchmarkPool is a sync.Pool Get and the Put of the object it returned
// (one goroutine: the object stays in its P's private slot).
func BenchmarkPool(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		for i, n := 0, b.N; i < n; i++ {
			pool.Put(pool.Get())
		}
	})
	b.Run("shim", func(b *testing.B) {
		for i, n := 0, b.N; i < n; i++ {
			precog_shim.PoolPut(8, &pool, precog_shim.PoolGet(7, &pool))
		}
	})
}

// BenchmarkSyncMapLoad is eight sync.Map Loads of integer keys, visiting
// 1024 keys in turn, as x/sync/syncmap's TestConcurrentRange does: the shim
// finds each key's location (its table of keys) besides the map's own
// lookup.
func BenchmarkSyncMapLoad(b *testing.B) {
	for k := range 1024 {
		smap.Store(k, k)
	}
	b.Run("plain", func(b *testing.B) {
		for i, n := 0, b.N; i < n; i++ {
			k := i * 8 & 1023
			smap.Load(k)
			smap.Load(k + 1)
			smap.Load(k + 2)
			smap.Load(k + 3)
			smap.Load(k + 4)
			smap.Load(k + 5)
			smap.Load(k + 6)
			smap.Load(k + 7)
		}
	})
	b.Run("shim", func(b *testing.B) {
		for i, n := 0, b.N; i < n; i++ {
			k := i * 8 & 1023
			precog_rt.SyncMapLoad(13, &smap, k)
			precog_rt.SyncMapLoad(13, &smap, k+1)
			precog_rt.SyncMapLoad(13, &smap, k+2)
			precog_rt.SyncMapLoad(13, &smap, k+3)
			precog_rt.SyncMapLoad(13, &smap, k+4)
			precog_rt.SyncMapLoad(13, &smap, k+5)
			precog_rt.SyncMapLoad(13, &smap, k+6)
			precog_rt.SyncMapLoad(13, &smap, k+7)
		}
	})
}

// BenchmarkSyncMapLoadScalar is BenchmarkSyncMapLoad with int64 keys, as
// the instrumenter rewrites x/sync/syncmap's TestConcurrentRange's Loads:
// through the Scalar wrapper, which keeps no key.
func BenchmarkSyncMapLoadScalar(b *testing.B) {
	for k := range int64(1024) {
		smap.Store(k, k)
	}
	b.Run("plain", func(b *testing.B) {
		for i, n := int64(0), int64(b.N); i < n; i++ {
			k := i * 8 & 1023
			smap.Load(k)
			smap.Load(k + 1)
			smap.Load(k + 2)
			smap.Load(k + 3)
			smap.Load(k + 4)
			smap.Load(k + 5)
			smap.Load(k + 6)
			smap.Load(k + 7)
		}
	})
	b.Run("shim", func(b *testing.B) {
		for i, n := int64(0), int64(b.N); i < n; i++ {
			k := i * 8 & 1023
			precog_rt.SyncMapLoadScalar(13, &smap, k)
			precog_rt.SyncMapLoadScalar(13, &smap, k+1)
			precog_rt.SyncMapLoadScalar(13, &smap, k+2)
			precog_rt.SyncMapLoadScalar(13, &smap, k+3)
			precog_rt.SyncMapLoadScalar(13, &smap, k+4)
			precog_rt.SyncMapLoadScalar(13, &smap, k+5)
			precog_rt.SyncMapLoadScalar(13, &smap, k+6)
			precog_rt.SyncMapLoadScalar(13, &smap, k+7)
		}
	})
}

// BenchmarkSyncMapStore is eight sync.Map Stores of int64 keys already in
// the map, visiting 1024 keys in turn, as TestConcurrentRange's loaders
// store now and then.
func BenchmarkSyncMapStore(b *testing.B) {
	for k := range int64(1024) {
		smap.Store(k, k)
	}
	b.Run("plain", func(b *testing.B) {
		for i, n := int64(0), int64(b.N); i < n; i++ {
			k := i * 8 & 1023
			smap.Store(k, i)
			smap.Store(k+1, i)
			smap.Store(k+2, i)
			smap.Store(k+3, i)
			smap.Store(k+4, i)
			smap.Store(k+5, i)
			smap.Store(k+6, i)
			smap.Store(k+7, i)
		}
	})
	b.Run("shim", func(b *testing.B) {
		for i, n := int64(0), int64(b.N); i < n; i++ {
			k := i * 8 & 1023
			precog_rt.SyncMapStore(15, &smap, k, i)
			precog_rt.SyncMapStore(15, &smap, k+1, i)
			precog_rt.SyncMapStore(15, &smap, k+2, i)
			precog_rt.SyncMapStore(15, &smap, k+3, i)
			precog_rt.SyncMapStore(15, &smap, k+4, i)
			precog_rt.SyncMapStore(15, &smap, k+5, i)
			precog_rt.SyncMapStore(15, &smap, k+6, i)
			precog_rt.SyncMapStore(15, &smap, k+7, i)
		}
	})
}

// BenchmarkSyncMapRange is a Range over a sync.Map of 1024 integer keys,
// as x/sync/syncmap's TestConcurrentRange makes 1024 of them: the
// harness divides by 1024, so the table is per key visited.
func BenchmarkSyncMapRange(b *testing.B) {
	for k := range 1024 {
		smap.Store(k, k)
	}
	visit := func(k, v any) bool {
		sink += uint64(v.(int))
		return true
	}
	b.Run("plain", func(b *testing.B) {
		for i, n := 0, b.N; i < n; i++ {
			smap.Range(visit)
		}
	})
	b.Run("shim", func(b *testing.B) {
		for i, n := 0, b.N; i < n; i++ {
			precog_rt.SyncMapRange(14, &smap, visit)
		}
	})
}

// BenchmarkSelect is a select whose receive case is not ready, so that its
// default case runs: a poll, as pond's workers do at every task.
func BenchmarkSelect(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		for i, n := 0, b.N; i < n; i++ {
			select {
			case v := <-empty:
				sink += uint64(v)
			default:
			}
		}
	})
	b.Run("shim", func(b *testing.B) {
		for i, n := 0, b.N; i < n; i++ {
			precog_s := precog_rt.Plan(14)
			select {
			case v := <-precog_rt.Recv(&precog_s, 0, empty):
				precog_rt.Got(&precog_s, 0, true, v)
				sink += uint64(v)
			default:
				precog_s.Defaulted()
			}
		}
	})
}
