// Package ignore: a //precog:ignore directive naming the check, with a
// reason, on the reported line or the line above it suppresses the
// diagnostic; without one, the diagnostic stands.
package ignore

func Reported(n int) {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		go func() {
			m[i] = 1 // want `concurrent map writes`
		}()
	}
}

func SameLine(n int) {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		go func() {
			m[i] = 1 //precog:ignore con-map each goroutine is started only after the previous one has stopped
		}()
	}
}

func LineAbove(n int) {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		go func() {
			//precog:ignore con-map each goroutine is started only after the previous one has stopped
			m[i] = 1
		}()
	}
}

func SeveralChecks(n int) {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		go func() {
			m[i] = 1 //precog:ignore con-null,con-map a reason for both
		}()
	}
}

func TwoLinesAbove(n int) {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		go func() {
			// want +1 `precog:ignore con-map suppresses nothing`
			//precog:ignore con-map too far from the write

			m[i] = 1 // want `concurrent map writes`
		}()
	}
}
