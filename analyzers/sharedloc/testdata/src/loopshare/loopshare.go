// Package loopshare: goroutines started in a loop share a variable
// declared outside the loop, or the spawner's receiver, but each has its
// own per-iteration variable and object. Package variables are shared by
// all.
package loopshare

type T struct{ n int }

var counter int

func Captures(n int) {
	total := 0
	for i := 0; i < n; i++ {
		own := 0
		go func() {
			own++     // want `^read own in go statement Captures\$1 from Captures: one per goroutine$` `^write own in go statement Captures\$1 from Captures: one per goroutine$`
			total++   // want `^read total in go statement Captures\$1 from Captures: shared$` `^write total in go statement Captures\$1 from Captures: shared$`
			counter++ // want `^read counter in go statement Captures\$1 from Captures: shared$` `^write counter in go statement Captures\$1 from Captures: shared$`
		}()
	}
}

func Objects(n int) {
	outer := &T{}
	for i := 0; i < n; i++ {
		inner := &T{}
		go func() {
			inner.n++ // want `^read inner in go statement Objects\$1 from Objects: one per goroutine$` `^read T.n in go statement Objects\$1 from Objects: one per goroutine$` `^write T.n in go statement Objects\$1 from Objects: one per goroutine$`
			outer.n++ // want `^read outer in go statement Objects\$1 from Objects: shared$` `^read T.n in go statement Objects\$1 from Objects: shared$` `^write T.n in go statement Objects\$1 from Objects: shared$`
		}()
	}
}

func (t *T) work() {
	t.n++ // want `^read T.n in go statement work from Receiver: shared$` `^write T.n in go statement work from Receiver: shared$` `^read T.n in go statement work from Fresh: one per goroutine$` `^write T.n in go statement work from Fresh: one per goroutine$`
}

func (t *T) Receiver(n int) {
	for i := 0; i < n; i++ {
		go t.work()
	}
}

func Fresh(n int) {
	for i := 0; i < n; i++ {
		w := &T{}
		go w.work()
	}
}
