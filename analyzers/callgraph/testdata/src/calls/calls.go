// Package calls makes dynamic calls of every kind the call graph resolves:
// interface methods with several implementations, function values,
// closures, method values, generic bodies, and calls in go and defer
// statements.
package calls

type Shape interface{ Area() int }

type Square struct{ s int }
type Rect struct{ w, h int }
type Circle struct{ r int }

func (q Square) Area() int  { return q.s * q.s }
func (r *Rect) Area() int   { return r.w * r.h }
func (c Circle) Area() int  { return 3 * c.r * c.r }
func (c Circle) Scale() int { return c.r }

func Total(shapes []Shape) int {
	n := 0
	for _, s := range shapes {
		n += s.Area()
	}
	return n
}

func Shapes() []Shape { return []Shape{Square{1}, &Rect{2, 3}, Circle{4}} }

func Apply(f func(int) int, v int) int { return f(v) }

func Double(v int) int { return 2 * v }
func Triple(v int) int { return 3 * v }

func Choose(b bool) int {
	f := Double
	if b {
		f = Triple
	}
	g := func(v int) int { return v + 1 }
	return Apply(f, 1) + Apply(g, 2) + Apply(Circle{1}.Scale2, 3)
}

func (c Circle) Scale2(v int) int { return c.r * v }

func Map[T any](xs []T, f func(T) T) []T {
	out := make([]T, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func Generic() []int { return Map([]int{1, 2}, Double) }

func Async(s Shape, done chan int) {
	go func() { done <- s.Area() }()
	defer s.Area()
	m := s.Area
	_ = m()
}

func All() int {
	d := make(chan int, 1)
	Async(Square{2}, d)
	Async(&Rect{1, 1}, d)
	return Total(Shapes()) + Choose(true) + len(Generic()) + <-d
}
