// Package fieldjoin: aws-sdk-go-v2's transfermanager cut down. upload
// starts its workers with `go u.work(ch)` after u.wg.Add(1), each worker
// defers u.wg.Done() and sends its buffers back into the pool, and upload
// waits on u.wg before it returns; the caller closes the pool after that
// (Uploader: silent; reported before, the WaitGroup being a field of the
// object the statement passes rather than a variable of upload's). NoWait
// never waits, and Late waits before it starts its last worker (both
// reported).
package fieldjoin

import "sync"

type pool struct{ slices chan []byte }

func newPool(n int) *pool {
	p := &pool{slices: make(chan []byte, n)}
	for range n {
		p.slices <- make([]byte, 8)
	}
	return p
}

func (p *pool) get() []byte { return <-p.slices }

func (p *pool) close() {
	close(p.slices)
}

type Uploader struct {
	pool *pool
	wg   sync.WaitGroup
}

// Upload hands n buffers to workers and closes the pool once they are done.
func Upload(n, workers int) {
	u := &Uploader{pool: newPool(workers)}
	u.upload(n, workers)
	u.pool.close()
}

func (u *Uploader) upload(n, workers int) {
	ch := make(chan []byte)
	for range workers {
		u.wg.Add(1)
		go u.work(ch)
	}
	for range n {
		ch <- u.pool.get()
	}
	close(ch)
	u.wg.Wait()
}

func (u *Uploader) work(ch chan []byte) {
	defer u.wg.Done()
	for b := range ch {
		u.pool.slices <- b
	}
}

type NoWait struct {
	pool *pool
	wg   sync.WaitGroup
}

// UploadNoWait closes the pool while its workers may still put buffers.
func UploadNoWait(n, workers int) {
	u := &NoWait{pool: newPool(workers)}
	u.upload(n, workers)
	u.pool.close()
}

func (u *NoWait) upload(n, workers int) {
	ch := make(chan []byte)
	for range workers {
		u.wg.Add(1)
		go u.work(ch)
	}
	for range n {
		ch <- u.pool.get()
	}
	close(ch)
}

func (u *NoWait) work(ch chan []byte) {
	defer u.wg.Done()
	for b := range ch {
		u.pool.slices <- b // want `send on closed channel: u.pool.slices may be closed concurrently by \(\*pool\).close`
	}
}

type Late struct {
	pool *pool
	wg   sync.WaitGroup
}

// UploadLate closes the pool while the worker started after the Wait
// may still put its buffer.
func UploadLate(workers int) {
	u := &Late{pool: newPool(workers)}
	u.upload(workers)
	u.pool.close()
}

func (u *Late) upload(workers int) {
	ch := make(chan []byte, workers+1)
	for range workers {
		u.wg.Add(1)
		go u.work(ch)
	}
	u.wg.Wait()
	u.wg.Add(1)
	go u.work(ch)
	ch <- u.pool.get()
	close(ch)
}

func (u *Late) work(ch chan []byte) {
	defer u.wg.Done()
	for b := range ch {
		u.pool.slices <- b // want `send on closed channel: u.pool.slices may be closed concurrently by \(\*pool\).close`
	}
}
