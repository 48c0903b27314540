// Package misc: the cases Opt2 and Pre must refuse, and the ones they
// take.
package misc

import "sync"

var (
	total  int
	mu     sync.Mutex
	table  map[string]int
	logged []string
)

func init() { // want `init#1: logged`
	table = makeTable()
}

// makeTable runs only during initialization, which starts no goroutine.
func makeTable() map[string]int { // want `makeTable: pre`
	return fill(map[string]int{})
}

func fill(m map[string]int) map[string]int { // want `fill: pre`
	m["a"] = 1
	return m
}

// Work runs on many goroutines.
func Work(n int) { // want `Work: opt1`
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { // want `Work\$1: logged spawned`
			defer wg.Done()
			step(i)
			branchy(i)
			twoCallers(i)
			other(i)
			locked(i)
		}()
	}
	wg.Wait()
}

func step(i int) { // want `step: logged spawned`
	total += i
	add(i)
}

// add is called where step always gets: it inherits from step and
// twoCallers both.
func add(i int) { // want `add: opt2 from step, twoCallers spawned`
	total += i
}

func twoCallers(i int) { // want `twoCallers: logged spawned`
	logged = append(logged, "x")
	add(i)
}

// branchy calls sometimes only: no inheritance.
func branchy(i int) { // want `branchy: logged spawned`
	if i%2 == 0 {
		maybe(i)
	}
	total--
}

func maybe(i int) { // want `maybe: logged spawned`
	total -= i
}

// Exported functions may be called from other packages.
func Exported(i int) { // want `Exported: logged`
	total *= i
}

func other(i int) { // want `other: logged spawned`
	total++
	Exported(i)
}

// locked synchronizes before calling inner: no inheritance.
func locked(i int) { // want `locked: logged spawned`
	mu.Lock()
	defer mu.Unlock()
	total++
	inner(i)
}

func inner(i int) { // want `inner: logged spawned`
	total += 2 * i
}

// local touches nothing shared.
func local(n int) int { // want `local: opt1`
	s := 0
	for i := range n {
		s += i
	}
	return s
}

// Local is exported to keep local used.
func Local() int { return local(3) } // want `Local: opt1`
