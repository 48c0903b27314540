// opts: funcs
package p

func a() int { return 1 }

func b() {
	f := func() {}
	f()
}
