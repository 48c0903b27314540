package reload

import "time"

// Notified is the RIGHT version: Reload closes done when both fields are
// set, and Addr waits for it. The channel orders every write before every
// read, so no schedule reverses a pair: targeted perturbation has nothing
// to force and the test never fails.
type Notified struct {
	Client
	done chan struct{}
}

// NewNotified returns a client of host:port whose reload Addr waits for.
func NewNotified(host string, port int) *Notified {
	return &Notified{Client: Client{host: host, port: port}, done: make(chan struct{})}
}

// Reload switches to host:port and then lets Addr go.
func (n *Notified) Reload(host string, port int, check time.Duration) {
	n.Client.Reload(host, port, check)
	close(n.done)
}

// Addr returns the endpoint once the reload is done.
func (n *Notified) Addr() string {
	<-n.done
	return n.Client.Addr()
}
