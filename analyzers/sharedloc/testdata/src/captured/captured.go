// Package captured: a captured local variable is local to the declaring
// goroutine until a closure that may run elsewhere captures it, and
// always when every closure capturing it runs on the declaring goroutine.
package captured

func Go() int {
	x := 0 // want `^write x: local$`
	go func() {
		x = 1 // want `^write x: shared$`
	}()
	return x // want `^read x: shared$`
}

func call(f func()) { f() }

func Synchronous() int {
	y := 0 // want `^write y: local$`
	call(func() {
		y++ // want `^read y: local$` `^write y: local$`
	})
	return y // want `^read y: local$`
}
