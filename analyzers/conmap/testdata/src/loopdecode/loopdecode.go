// Package loopdecode: a serve loop that reads each message into a new
// object, filling its map in the reading call, and hands it to a
// goroutine started after the read returns it (govici's test server).
// Each turn's message is another object: the read's writes come before
// the goroutine that reads that message, and the next turn writes the
// next message. Silent. A reader that fills a message kept across turns,
// or fills the message after the goroutine starts, is reported.
package loopdecode

import "io"

type Message struct {
	kind string
	data map[string]any
}

func NewMessage() *Message { return &Message{data: make(map[string]any)} }

func (m *Message) Get(k string) any { return m.data[k] }

func (m *Message) addItem(k string, v any) {
	switch v := v.(type) {
	case string:
		m.data[k] = v
	case int:
		m.data[k] = v
	}
}

func (m *Message) decode(b []byte) error {
	for i := range b {
		if err := m.decodeItem(b[i:]); err != nil {
			return err
		}
	}
	return nil
}

func (m *Message) decodeItem(b []byte) error {
	if len(b) == 0 {
		return io.ErrUnexpectedEOF
	}
	m.addItem(string(b[:1]), int(b[0]))
	return nil
}

// decodeList is decode's other caller of addItem, on its own message.
func (m *Message) decodeList(b []byte) {
	for _, c := range b {
		m.addItem("list", int(c))
	}
}

type server struct {
	r    io.Reader
	last *Message
}

func (s *server) read() (*Message, error) {
	p := NewMessage()
	buf := make([]byte, 4)
	if _, err := io.ReadFull(s.r, buf); err != nil {
		return nil, err
	}
	if err := p.decode(buf); err != nil {
		return nil, err
	}
	return p, nil
}

func (s *server) serve(handle func(*Message)) {
	for {
		p, err := s.read()
		if err != nil {
			return
		}
		go func() {
			handle(p)
			_ = p.Get("kind")
		}()
	}
}

// Decode reads a message whole for a caller.
func Decode(b []byte) *Message {
	m := NewMessage()
	m.decodeList(b)
	return m
}
