// Package budget: two channel orders, one asked with the package's budget
// intact, the other after it ran out (TestBudget).
package budget

func a(string) {}
func b(string) {}

func Intact() {
	done := make(chan struct{})
	go func() {
		a("intact")
		close(done)
	}()
	<-done
	b("intact")
}

func Spent() {
	done := make(chan struct{})
	go func() {
		a("spent")
		close(done)
	}()
	<-done
	b("spent")
}
