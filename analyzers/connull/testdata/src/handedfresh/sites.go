package handedfresh

import "sync"

// A query goroutine that releases its message's header where a function
// it calls at several sites runs (codeberg.org/miekg/dns's serveTCP: each
// query gets a fresh Msg, read into before its goroutine starts; the
// goroutine packs it, and pack is reached from Pack's two calls, Pack from
// the query's own call and from refuse, which packs a reply it makes
// afresh). Only the calls that may pass the query's object matter: the
// refusal's is another allocation. Silent. The control keeps the last
// query in a field the goroutine packs too: that object may be the next
// turn's, which the loop reads into while this goroutine releases it.

type header struct{ id int }

type Msg struct{ hdr *header }

func (m *Msg) Pack() {
	if m.hdr != nil && m.hdr.id < 0 {
		m.pack(true)
		return
	}
	m.pack(false)
}

func (m *Msg) pack(short bool) {
	if short {
		m.hdr = nil
		return
	}
	m.hdr = nil
}

func refuse(r *Msg) {
	m := new(Msg)
	m.hdr = &header{id: -1}
	m.Pack()
}

func serveOne(r *Msg) {
	if r.hdr.id < 0 {
		refuse(r)
		return
	}
	r.Pack()
}

type Server struct{ last *Msg }

func (s *Server) ServeConn(ids chan int) {
	var wg sync.WaitGroup
	for id := range ids {
		r := &Msg{hdr: &header{}}
		r.hdr.id = id
		wg.Add(1)
		go func() {
			defer wg.Done()
			serveOne(r)
		}()
	}
	wg.Wait()
}

func serveLast(s *Server, r *Msg) {
	r.Pack()
	s.last.Pack()
}

func (s *Server) ServeKept(ids chan int) {
	var wg sync.WaitGroup
	for id := range ids {
		r := &Msg{hdr: &header{}}
		r.hdr.id = id // want `r\.hdr may be nil`
		wg.Add(1)
		go func() {
			defer wg.Done()
			serveLast(s, r)
		}()
		s.last = r
	}
	wg.Wait()
}
