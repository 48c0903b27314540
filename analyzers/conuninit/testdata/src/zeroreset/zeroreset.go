// Package zeroreset is discordgo's voice connection: open sets the
// connection and starts the listener, which starts an event handler per
// message; when the server says the connection is abandoned, the
// listener resets the fields to their zero values and reconnects. A store of the zero value initializes
// nothing a read could miss: not reported (a nil read after it is
// con-null's). A field the starter sets to a value only after the go
// statement is.
package zeroreset

import "sync"

type conn struct{ id int }

type voice struct {
	sync.Mutex
	ws    *conn
	codec *conn
	mode  string
	n     int
}

func (v *voice) onEvent() int {
	if v.ws == nil {
		return 0
	}
	return v.ws.id + len(v.mode) + v.n
}

func (v *voice) listen(ws *conn, msgs chan int, done chan struct{}) {
	for m := range msgs {
		if m == 4014 {
			v.Lock()
			v.ws = nil
			v.mode = ""
			v.n = 0
			v.Unlock()
			go v.reconnect(msgs)
			return
		}
		select {
		case <-done:
			return
		default:
			go v.onEvent()
		}
	}
}

func (v *voice) reconnect(msgs chan int) { v.open(msgs) }

func (v *voice) open(msgs chan int) {
	v.Lock()
	defer v.Unlock()
	v.ws = &conn{id: 1}
	v.mode = "xsalsa"
	v.n = 1
	go v.listen(v.ws, msgs, make(chan struct{}))
}

func (v *voice) decode() int { return v.codec.id } // want `v.codec may be read before it is set`

func (v *voice) start() {
	go v.decode()
	v.codec = &conn{id: 2}
}

func Open(msgs chan int) *voice {
	v := &voice{}
	v.open(msgs)
	v.start()
	return v
}
