// Package nolint: golangci-lint style //nolint and //nolint:precog
// comments suppress the diagnostic; a //nolint for other linters does not.
package nolint

func All(n int) {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		go func() {
			m[i] = 1 //nolint
		}()
	}
}

func Precog(n int) {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		go func() {
			m[i] = 1 //nolint:errcheck,precog // benign in this test
		}()
	}
}

func LineAbove(n int) {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		go func() {
			//nolint:precog
			m[i] = 1
		}()
	}
}

func OtherLinter(n int) {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		go func() {
			m[i] = 1 /* want `concurrent map writes` */ //nolint:errcheck
		}()
	}
}

// TrailingOnly: a //nolint after code covers its own line, not the next.
func TrailingOnly(n int) {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		go func() {
			_ = i    //nolint
			m[i] = 1 // want `concurrent map writes`
		}()
	}
}
