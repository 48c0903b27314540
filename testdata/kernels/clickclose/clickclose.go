// Package clickclose is the Click kernel, con-closed part (ConMem, conmem.txt
// Fig. 13 and Sec. 7.5; Click 1.8.0): a Con-Dangling bug found by ConMem in a
// program with no known concurrency bugs.
//
// The master keeps one metadata object per router thread (RouterThread). When
// the router is killed, the master tears each thread's object down: it closes
// the thread's output queue, drains it and drops the slot, but it never waits
// for the thread's driver loop to stop. A driver that is still forwarding a
// packet sends on the closed queue.
//
// Crashing interleaving:
//
//	master goroutine                 driver goroutine of thread i
//	                                 p := <-t.input
//	close(t.output)
//	m.threads[i] = nil
//	                                 t.output <- p
//	                                 panic: send on closed channel
//
// The normal schedule hides the bug: stop usually arrives after the traffic
// has been forwarded and every driver has left its loop.
//
// RIGHT version in this file: each thread's input is closed by fromDevice,
// its only sender, after its last send. The nil-slot half of Fig. 13 (a field
// of the dropped object set to nil while the driver dereferences it) is the
// con-null kernel connull/click.
package clickclose

// Packet is a network packet.
type Packet []byte

// RouterThread is the per-thread metadata object kept by the master.
type RouterThread struct {
	id      int
	input   chan Packet // FromDevice -> driver
	output  chan Packet // driver -> ToDevice queue, drained by the master
	handled int
}

// driver is RouterThread::driver: forward packets until the input ends.
func (t *RouterThread) driver() {
	for p := range t.input {
		t.handled++
		t.output <- p // want `send on closed channel`
	}
}

// fromDevice is the FromDevice element: the only sender on in.
func fromDevice(in chan<- Packet, pkts []Packet) {
	for _, p := range pkts {
		in <- p
	}
	close(in)
}

// Master owns the router threads.
type Master struct {
	threads []*RouterThread
}

// Start creates one router thread per traffic source.
func (m *Master) Start(traffic [][]Packet) {
	for i, pkts := range traffic {
		t := &RouterThread{
			id:     i,
			input:  make(chan Packet),
			output: make(chan Packet, len(pkts)),
		}
		m.threads = append(m.threads, t)
		go fromDevice(t.input, pkts)
		go t.driver()
	}
}

// KillRouter drains and drops every thread's object without waiting for the
// thread to stop.
func (m *Master) KillRouter() int {
	sent := 0
	for i, t := range m.threads {
		close(t.output)
		for p := range t.output {
			sent += len(p)
		}
		m.threads[i] = nil
	}
	return sent
}

// Run forwards traffic until stop, then kills the router.
func Run(traffic [][]Packet, stop <-chan struct{}) int {
	m := &Master{}
	m.Start(traffic)
	<-stop
	return m.KillRouter()
}
