// Package othercheck: a directive for another check neither suppresses
// this check's diagnostic nor is reported by this check.
package othercheck

func OtherID(n int) {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		go func() {
			m[i] = 1 /* want `concurrent map writes` */ //precog:ignore con-null not this check
		}()
	}
}

func NotADirective(n int) {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		go func() {
			m[i] = 1 /* want `concurrent map writes` */ //precog:ignored con-map looks alike
		}()
	}
}
