// Package tupleresult: a function returning two fresh messages, the
// request a caller keeps and the reply it hands to a goroutine. Each
// result of a call holds only what the callee returns in that position:
// the caller's request map is not the goroutine's reply map, whether the
// value is followed through the call (req, reply := newExchange()) or
// merged at a join point first (msg below). Silent; the same reply also
// written by its caller is reported.
package tupleresult

type Message struct {
	headers map[string]string
}

func newExchange() (*Message, *Message) {
	return &Message{headers: map[string]string{}}, &Message{headers: map[string]string{}}
}

func fill(m *Message) {
	m.headers["Server"] = "precog" // want `concurrent map writes: m.headers is written here and by Share with no common lock`
}

// Exchange keeps the request and hands the reply to a goroutine.
func Exchange(host string) {
	req, reply := newExchange()
	go fill(reply)
	req.headers["Host"] = host
}

// Retry picks one of two requests at a join point before writing it.
func Retry(host string, again bool) {
	req, reply := newExchange()
	go fill(reply)
	msg := req
	if again {
		msg, _ = newExchange()
	}
	msg.headers["Host"] = host
}

// Share hands the reply to the goroutine and writes it too: reported.
func Share(host string) {
	_, reply := newExchange()
	go fill(reply)
	reply.headers["Host"] = host // want `concurrent map writes: reply.headers is written here and by fill with no common lock`
}
