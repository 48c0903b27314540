package testside

import (
	"io"
	"testing"
)

func TestListen(t *testing.T) {
	l := &Listener{}
	go l.Listen()
	t.Log(*l.addr) // want `l.addr may be read before it is set: \(\*Listener\).Listen sets it on the goroutine started at line \d+, which may not have run yet$`
}

var sink Sink

func TestProduce(t *testing.T) {
	pr, pw := io.Pipe()
	res := &Result{}
	go Produce(pw, res, []byte("data"))
	if err := sink.Write(pr); err != nil {
		t.Fatal(err)
	}
	t.Log(res.n) // want `res.n may be read before it is set: Produce sets it on the goroutine started at line \d+, which may not have run yet \(low confidence: it assumes that sink.Write returns before it has read pr to its end, which pw.Close makes only after res.n is set\)$`
}
