// Package localspawn: a helper of the package that runs its function
// parameter on a new goroutine roots a context at each of its call sites,
// for the function passed there.
package localspawn

func spawn(f func()) { // want `^ctx: caller$`
	go f()
}

func tick() {} // want `^ctx: detached function tick multi$`

func Start(n int) { // want `^ctx: caller$`
	spawn(func() {}) // want `^ctx: detached function Start\$1$`
	for i := 0; i < n; i++ {
		spawn(tick)
	}
}
