// Package earlyjoin: aws-sdk-go-v2's transfermanager cut down. Each of
// UploadDir's goroutines uploads a file with a part pool of its own,
// closed by a deferred call once upload returns; upload returns early,
// before it starts its workers, when it cannot begin, and otherwise waits
// for them on u.wg, so they have ended when the call returns (Uploader:
// silent; reported before, the Wait not being on every path through
// upload). Leaky returns early after it started its workers, without
// waiting for them, and Nested closes its pool after a nested call of
// upload, while the outer call's worker may still put (both reported).
package earlyjoin

import (
	"errors"
	"sync"
)

type buffers interface {
	get() []byte
	put([]byte)
	close()
}

type pool struct{ slices chan []byte }

func newPool(n int) *pool {
	p := &pool{slices: make(chan []byte, n)}
	for range n {
		p.slices <- make([]byte, 8)
	}
	return p
}

func (p *pool) get() []byte { return <-p.slices }

func (p *pool) put(b []byte) { p.slices <- b }

func (p *pool) close() { close(p.slices) }

var errEmpty = errors.New("nothing to upload")

type Uploader struct {
	pool buffers
	wg   sync.WaitGroup
}

func uploadFile(n int) error {
	u := &Uploader{}
	u.pool = newPool(4)
	defer u.pool.close()
	return u.upload(n)
}

func (u *Uploader) upload(n int) error {
	if n == 0 {
		return errEmpty
	}
	ch := make(chan []byte)
	for range 4 {
		u.wg.Add(1)
		go u.work(ch)
	}
	for range n {
		ch <- u.pool.get()
	}
	close(ch)
	u.wg.Wait()
	return nil
}

func (u *Uploader) work(ch chan []byte) {
	defer u.wg.Done()
	for b := range ch {
		u.pool.put(b)
	}
}

// UploadDir uploads a file of each size with a goroutine per file.
func UploadDir(sizes []int) {
	var wg sync.WaitGroup
	for _, n := range sizes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = uploadFile(n)
		}()
	}
	wg.Wait()
}

// leakyPool is Leaky's pool, a pool of its own so that its send is
// reported apart from Uploader's.
type leakyPool struct{ slices chan []byte }

func newLeakyPool(n int) *leakyPool {
	p := &leakyPool{slices: make(chan []byte, n)}
	for range n {
		p.slices <- make([]byte, 8)
	}
	return p
}

func (p *leakyPool) get() []byte { return <-p.slices }

func (p *leakyPool) put(b []byte) {
	p.slices <- b // want `send on closed channel: p.slices may be closed concurrently by \(\*leakyPool\).close`
}

func (p *leakyPool) close() { close(p.slices) }

type Leaky struct {
	pool buffers
	wg   sync.WaitGroup
}

func leakyFile(n int) error {
	u := &Leaky{}
	u.pool = newLeakyPool(4)
	defer u.pool.close()
	return u.upload(n)
}

func (u *Leaky) upload(n int) error {
	ch := make(chan []byte, 1)
	for range 4 {
		u.wg.Add(1)
		go u.work(ch)
	}
	if n == 0 {
		return errEmpty
	}
	for range n {
		ch <- u.pool.get()
	}
	close(ch)
	u.wg.Wait()
	return nil
}

func (u *Leaky) work(ch chan []byte) {
	defer u.wg.Done()
	for b := range ch {
		u.pool.put(b)
	}
}

// LeakyDir uploads a file of each size with a goroutine per file.
func LeakyDir(sizes []int) {
	var wg sync.WaitGroup
	for _, n := range sizes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = leakyFile(n)
		}()
	}
	wg.Wait()
}

// nestedPool is Nested's pool, a pool of its own so that its send is
// reported apart from the others'.
type nestedPool struct{ slices chan []byte }

func (p *nestedPool) get() []byte { return make([]byte, 8) }

func (p *nestedPool) put(b []byte) {
	p.slices <- b // want `send on closed channel: p.slices may be closed concurrently by \(\*nestedPool\).close`
}

func (p *nestedPool) close() { close(p.slices) }

type Nested struct {
	pool buffers
	wg   sync.WaitGroup
}

// Upload uploads n parts, the first n-1 of them in a nested call.
func (u *Nested) Upload(n int) error {
	u.pool = &nestedPool{slices: make(chan []byte, n)}
	return u.upload(n)
}

func (u *Nested) upload(n int) error {
	if n == 0 {
		return errEmpty
	}
	ch := make(chan []byte, 1)
	u.wg.Add(1)
	go u.work(ch)
	if n > 1 {
		_ = u.upload(n - 1)
		u.pool.close()
	}
	ch <- u.pool.get()
	close(ch)
	u.wg.Wait()
	return nil
}

func (u *Nested) work(ch chan []byte) {
	defer u.wg.Done()
	for b := range ch {
		u.pool.put(b)
	}
}
