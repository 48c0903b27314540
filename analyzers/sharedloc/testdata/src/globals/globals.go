// Package globals: accesses to package variables are never local.
package globals

var counter int

type T struct{ n int }

var shared = &T{}

func Bump(n int) {
	counter = 0 // want `^write counter: shared$`
	for i := 0; i < n; i++ {
		go func() {
			shared.n++ // want `^read shared: shared$` `^read T.n: shared$` `^write T.n: shared$`
		}()
	}
}
