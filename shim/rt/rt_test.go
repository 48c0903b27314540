package rt

import (
	"errors"
	"testing"
	"time"
	"unsafe"

	shim "github.com/precog-dev/precog/shim"
)

// forced returns a Select that forces clause i, as SelectPlan would.
func forced(i int) (Select, chan struct{}) {
	timeout := make(chan struct{})
	return Select{force: i, timeout: timeout}, timeout
}

func TestSelectForcesReceive(t *testing.T) {
	a, b := make(chan int, 1), make(chan int, 1)
	a <- 1
	b <- 2
	s, _ := forced(1)
	if !s.Forcing() {
		t.Fatal("not forcing")
	}
	TryRecv(&s, 0, a)
	TryRecv(&s, 1, b)
	got := 0
	select {
	case v := <-Recv(&s, 0, a):
		got = 10 * v
	case v := <-Recv(&s, 1, b):
		got = v
	}
	if got != 2 || len(a) != 1 || len(b) != 0 {
		t.Errorf("got %d, len(a) %d, len(b) %d; want clause 1 only", got, len(a), len(b))
	}
	if s.addrs[0] != shim.ChanAddr(a) || s.addrs[1] != shim.ChanAddr(b) {
		t.Error("real channel addresses not noted")
	}
}

func TestSelectForcedReceiveOfClosed(t *testing.T) {
	a := make(chan int)
	close(a)
	s, _ := forced(0)
	TryRecv(&s, 0, a)
	select {
	case v, ok := <-Recv(&s, 0, a):
		if ok || v != 0 {
			t.Errorf("got %d, %v from a closed channel", v, ok)
		}
	}
}

func TestSelectForcesSend(t *testing.T) {
	a, b := make(chan error, 1), make(chan int, 1)
	b <- 0 // full: only forcing can make clause 1 run
	want := errors.New("x")
	s, _ := forced(0)
	TrySend(&s, 0, a, want)
	TryRecv(&s, 1, b)
	ran := -1
	select {
	case Send(&s, 0, a) <- want:
		ran = 0
	case <-Recv(&s, 1, b):
		ran = 1
	}
	if ran != 0 || <-a != want {
		t.Errorf("clause %d ran", ran)
	}
}

func TestSelectForcesDefault(t *testing.T) {
	a := make(chan int, 1)
	a <- 1
	s, _ := forced(-1)
	TryRecv(&s, 0, a)
	TryDefault(&s)
	select {
	case <-Recv(&s, 0, a):
		t.Error("receive ran")
	default:
	}
}

func TestSelectTimeoutRunsAsWritten(t *testing.T) {
	a, b := make(chan int), make(chan int, 1)
	b <- 5
	s, timeout := forced(0) // a never becomes ready
	time.AfterFunc(10*time.Millisecond, func() { close(timeout) })
	TryRecv(&s, 0, a)
	TryRecv(&s, 1, b)
	select {
	case <-Recv(&s, 0, a):
		t.Error("clause 0 ran")
	case v := <-Recv(&s, 1, b):
		if v != 5 {
			t.Errorf("got %d", v)
		}
	}
}

func TestSelectNotForcing(t *testing.T) {
	s := Plan(1) // no control plan in tests
	if s.Forcing() {
		t.Fatal("forcing without a plan")
	}
	a := make(chan int, 1)
	a <- 3
	TryRecv(&s, 0, a)
	select {
	case v := <-Recv(&s, 0, a):
		s.Received(0, true)
		if v != 3 {
			t.Errorf("got %d", v)
		}
	}
}

// TestSelectElems: Val hands the send clause its value and keeps its
// fingerprint for Sent, clause by clause.
func TestSelectElems(t *testing.T) {
	s := Plan(1)
	x, y := new(int), new(int)
	a, b := make(chan *int, 1), make(chan *int)
	select {
	case Send(&s, 0, a) <- Val(&s, 0, x):
		s.Sent(0)
	case Send(&s, 1, b) <- Val(&s, 1, y):
		s.Sent(1)
	}
	if got := <-a; got != x {
		t.Errorf("sent %p, want %p", got, x)
	}
	if s.elems[0] != shim.ElemOf(&x) || s.elems[1] != shim.ElemOf(&y) || s.elems[0] == s.elems[1] {
		t.Errorf("elems %v, want %d and %d", s.elems[:2], shim.ElemOf(&x), shim.ElemOf(&y))
	}
}

func TestRangeOf(t *testing.T) {
	ch := make(chan int, 3)
	ch <- 1
	ch <- 2
	close(ch)
	sum, n := 0, 0
	for r, v := RangeOf(1, ch); r.Next(&v); {
		sum += v
	}
	for r, _ := RangeOf(1, (<-chan int)(ch)); r.Next(nil); {
		n++
	}
	if sum != 3 || n != 0 {
		t.Errorf("sum %d, n %d", sum, n)
	}
}

func TestLocAndSender(t *testing.T) {
	var e error
	At(1, &e).Set(errors.ErrUnsupported)
	if e != errors.ErrUnsupported {
		t.Error("Set did not store")
	}
	ch := make(chan error, 1)
	SendTo(2, ch).Send(errors.ErrUnsupported)
	if <-ch != errors.ErrUnsupported {
		t.Error("Send did not send")
	}
}

// Value words are the shim's (shim.Wrote, tested there); rt only forwards.
func TestWroteDoesNotAllocate(t *testing.T) {
	x := 7
	if n := testing.AllocsPerRun(100, func() { Wrote(1, &x) }); n != 0 {
		t.Errorf("Wrote allocates %v times", n)
	}
}

func TestLaterNotesAddressesBeforeTheAssignment(t *testing.T) {
	calls := []int{1, 2, 3}
	i := 2
	var l Writes
	*Later(&l, 1, &calls[i]), calls = calls[len(calls)-1], calls[:len(calls)-1]
	l.Done() // must not re-evaluate calls[i], now out of range
	if l.n != 1 || l.w[0].p != unsafe.Pointer(&calls[:3][2]) {
		t.Errorf("noted %d targets, first %p", l.n, l.w[0].p)
	}
}
