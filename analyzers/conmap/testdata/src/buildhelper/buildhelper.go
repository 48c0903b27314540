// Package buildhelper has a message whose headers live in maps its
// constructor makes, applying the options it is given, and whose setters
// a test helper calls on a new message before it returns it (go-mail's
// testMessage). A test that makes a message per turn of a loop and hands
// each to a goroutine that sends it writes the new message's headers while
// the last turn's goroutine reads its own: the message the helper fills is
// the test goroutine's alone until the helper returns it. Not reported. A
// test that sets a header of a message its goroutine is sending is. A
// test that clears a message's map leaves it holding no map at all: the
// maps are still each message's own.
package buildhelper

import (
	"sort"
	"strings"
)

type Msg struct {
	addr    map[string][]string
	gen     map[string]string
	charset string
}

// An Option configures a new message.
type Option func(*Msg)

// WithCharset sets the message's charset.
func WithCharset(cs string) Option { return func(m *Msg) { m.charset = cs } }

// New makes a message.
func New(opts ...Option) *Msg {
	m := &Msg{addr: make(map[string][]string), gen: make(map[string]string), charset: "utf-8"}
	for _, o := range opts {
		o(m)
	}
	return m
}

// From sets the sender.
func (m *Msg) From(a string) { m.setAddr("From", a) }

func (m *Msg) setAddr(h, a string) {
	m.addr[h] = []string{m.encode(a)}
}

// ReplyTo sets the reply address.
func (m *Msg) ReplyTo(a string) {
	m.addr["Reply-To"] = []string{a} // want `concurrent map read and map write: m.addr is written here and read by \(\*Msg\).Sender`
}

func (m *Msg) encode(s string) string { return m.charset + ":" + s }

// Subject sets the subject.
func (m *Msg) Subject(s string) { m.gen["Subject"] = s }

// Sender reads the sender.
func (m *Msg) Sender() string { return strings.Join(m.addr["From"], ",") }

// Headers lists the generic headers.
func (m *Msg) Headers() []string {
	var hs []string
	for h := range m.gen {
		hs = append(hs, h)
	}
	sort.Strings(hs)
	return hs
}

// Send reads the message's headers.
func Send(m *Msg) int { return len(m.Sender()) + len(m.Headers()) }
