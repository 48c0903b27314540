// Package copycheck: a queue loop that copies a field under the mutex,
// checks the copy for nil after the Unlock (`if cli == nil { continue }`)
// and uses only the copy, in loops whose header the check's non-nil
// edge joins (paho.golang's managePublishQueue): every path from the
// copy to its use passes the check, so the use never sees nil. A path
// around the check, and a copy read again in the inner loop without a
// check, stay reported.
package copycheck

import "sync"

type client struct{ n int }

func (c *client) Publish() { c.n++ }

type Manager struct {
	mu          sync.Mutex
	cli, around *client
	again       *client
	queue       chan int
}

func (m *Manager) Loop() {
	for {
		m.mu.Lock()
		cli := m.cli
		m.mu.Unlock()
		if cli == nil {
			continue
		}
	queue:
		for {
			if _, ok := <-m.queue; !ok {
				continue queue
			}
			cli.Publish()
		}
	}
}

func (m *Manager) Around(ready bool) {
	for {
		m.mu.Lock()
		cli := m.around
		m.mu.Unlock()
		if ready {
			if cli == nil {
				continue
			}
		}
		for range m.queue {
			cli.Publish() // want `m.around may be nil when used to call \(\*client\).Publish here: \(\*Manager\).Down stores nil to it concurrently`
		}
	}
}

func (m *Manager) Again() {
	for {
		m.mu.Lock()
		cli := m.again
		m.mu.Unlock()
		if cli == nil {
			continue
		}
		for range m.queue {
			cli.Publish()
			m.mu.Lock()
			cli = m.again
			m.mu.Unlock()
			cli.Publish() // want `m.again may be nil when used to call \(\*client\).Publish here: \(\*Manager\).Down stores nil to it concurrently`
		}
	}
}

func (m *Manager) Down() {
	m.mu.Lock()
	m.cli = nil
	m.around = nil
	m.again = nil
	m.mu.Unlock()
}

func Start(m *Manager) {
	go m.Loop()
	go m.Around(true)
	go m.Again()
	go m.Down()
}
