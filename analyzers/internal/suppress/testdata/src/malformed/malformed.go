// Package malformed: a //precog:ignore directive without a reason is
// reported and suppresses nothing.
package malformed

func SameLine(n int) {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		go func() {
			// want +1 `concurrent map writes` `precog:ignore con-map needs a reason`
			m[i] = 1 //precog:ignore con-map
		}()
	}
}

func LineAbove(n int) {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		go func() {
			// want +1 `precog:ignore con-map needs a reason`
			//precog:ignore con-map
			m[i] = 1 // want `concurrent map writes`
		}()
	}
}
