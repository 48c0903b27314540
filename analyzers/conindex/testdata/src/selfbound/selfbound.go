// Package selfbound: pollers that keep, in a field of their own, a method
// value bound to themselves (netpoll's `poll.Reset = poll.reset`), each
// waited on by its own goroutine, which calls its poller's reset through
// the field. Every store of the field stores a closure bound to the
// object it is stored in, and no poller is copied whole: the reset a
// goroutine calls through its poller's field runs on that poller, so the
// two goroutines resize two pollers' barriers: silent. Beside it, a field
// that holds a method value bound to another poller (borrowed), and a
// poller copied whole (copied), whose field's closure stays bound to the
// original: both goroutines resize one poller's barriers, reported.
package selfbound

type barrier struct {
	bs [][]byte
}

type args struct {
	size     int
	barriers []barrier
}

func (a *args) reset(size int) {
	a.size = size
	a.barriers = make([]barrier, size)
	for i := range a.barriers {
		a.barriers[i].bs = make([][]byte, 4)
	}
}

type poller struct {
	args
	fd    int
	Reset func(size int)
}

func openPoller(fd int) *poller {
	p := new(poller)
	p.fd = fd
	p.Reset = p.reset
	return p
}

func (p *poller) Wait() {
	p.Reset(128)
	for n := 0; n < 10; n++ {
		if n == p.size {
			p.Reset(p.size << 1)
		}
	}
}

// Start waits on two pollers, each on a goroutine of its own.
func Start() {
	a := openPoller(1)
	go a.Wait()
	b := openPoller(2)
	go b.Wait()
}

type borrowedArgs struct {
	size     int
	barriers []barrier
}

func (a *borrowedArgs) reset(size int) {
	a.size = size
	a.barriers = make([]barrier, size)
	for i := range a.barriers {
		a.barriers[i].bs = make([][]byte, 4) // want `may be out of range: a\.barriers is replaced concurrently by \(\*borrowedArgs\)\.reset`
	}
}

type borrowed struct {
	borrowedArgs
	Reset func(size int)
}

// openBorrowed binds the new poller's Reset to owner's reset: pollers
// opened with one owner resize the owner's barriers.
func openBorrowed(owner *borrowed) *borrowed {
	p := new(borrowed)
	p.Reset = owner.reset
	return p
}

func (p *borrowed) Wait() {
	p.Reset(128)
}

// StartBorrowed waits on two pollers that share one owner.
func StartBorrowed() {
	owner := new(borrowed)
	owner.Reset = owner.reset
	a := openBorrowed(owner)
	go a.Wait()
	b := openBorrowed(owner)
	go b.Wait()
}

type copiedArgs struct {
	size     int
	barriers []barrier
}

func (a *copiedArgs) reset(size int) {
	a.size = size
	a.barriers = make([]barrier, size)
	for i := range a.barriers {
		a.barriers[i].bs = make([][]byte, 4) // want `may be out of range: a\.barriers is replaced concurrently by \(\*copiedArgs\)\.reset`
	}
}

type copied struct {
	copiedArgs
	Reset func(size int)
}

func openCopied() *copied {
	p := new(copied)
	p.Reset = p.reset
	return p
}

// clone copies p whole: the copy's Reset is still bound to p.
func clone(p *copied) *copied {
	q := new(copied)
	*q = *p
	return q
}

func (p *copied) Wait() {
	p.Reset(128)
}

// StartCopied waits on a poller and on its copy.
func StartCopied() {
	a := openCopied()
	go a.Wait()
	b := clone(a)
	go b.Wait()
}
