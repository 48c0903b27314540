package p

import (
	"fmt"
	"sync"
)

type server struct {
	wg   sync.WaitGroup
	done chan struct{}
}

func (s *server) run(id int, name string) { fmt.Println(id, name) }

func work(xs ...int) int { return len(xs) }

func pair() (int, error) { return 1, nil }

func takeErr(n int, err error) {}

func spawn(s *server, handler func(int)) {
	for i := 0; i < 3; i++ {
		go s.run(i, "x")
		go func(n int) {
			handler(n)
		}(i)
	}
	go handler(1)
	go work(1, 2, 3)
	xs := []int{1, 2}
	go work(xs...)
	go takeErr(pair())
	go fmt.Println(
		"multi",
		len(xs),
	)
	s.wg.Go(func() { s.run(0, "wg") })
	s.wg.Wait()
	f := s.run
	go f(7, "y")
}

type conn struct{ ch chan int }

// literals: the argument reads s.ch before the fork; the forms that keep
// the id in a variable (variadic, unnamed parameters, f(g())) beside them.
func literals(s *conn) {
	go func(ch chan int) {
		s.ch = nil
		ch <- 1
	}(s.ch)
	go func(
		ch chan int,
		n int,
	) {
		ch <- n
	}(
		s.ch,
		len(s.ch), // the last
	)
	go func(chs ...chan int) {}(s.ch)
	go func(chan int) {}(s.ch)
	go func(n int, err error) {}(pair())
	go func() { s.ch = nil }()
}
