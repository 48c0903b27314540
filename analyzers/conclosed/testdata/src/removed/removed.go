// Package removed: commands wait in a pending list under the client's
// mutex; the reader removes one on its reply (append(l[:i], l[i+1:]...)
// returning it) and completes it, and a failed write takes the whole list
// (swapped for nil) and completes every command in it (emersion/go-imap's
// client: deletePendingCmdByTag, closeWithError, completeCommand). A
// command belongs to the goroutine that removed it under the mutex, so the
// two completions never send on or close one command's channels: silent.
// Reported beside it: a command the reader finds and leaves in the list
// (its send meets the failed write's close), a list whose removal runs
// outside the mutex, a list that holds a task twice, and requests that
// share their server's channel.
package removed

import (
	"io"
	"sync"
)

type commandBase struct {
	tag  string
	done chan error
}

func (c *commandBase) base() *commandBase { return c }

type command struct {
	commandBase
	msgs chan int
}

type Client struct {
	w       io.Writer
	mu      sync.Mutex
	pending []*command
}

func (c *Client) begin(tag string, cmd *command) {
	c.mu.Lock()
	b := cmd.base()
	b.tag = tag
	b.done = make(chan error, 1)
	c.pending = append(c.pending, cmd)
	c.mu.Unlock()
}

func (c *Client) Fetch(tag string) *command {
	cmd := &command{msgs: make(chan int, 8)}
	c.begin(tag, cmd)
	return cmd
}

func (c *Client) Noop(tag string) error {
	cmd := &command{}
	c.begin(tag, cmd)
	if err := c.write(); err != nil {
		c.closeWithError(err)
	}
	return <-cmd.done
}

func (c *Client) write() error {
	_, err := c.w.Write([]byte("noop"))
	return err
}

func (c *Client) deleteByTag(tag string) *command {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, cmd := range c.pending {
		if cmd.base().tag == tag {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			return cmd
		}
	}
	return nil
}

func (c *Client) findFetch() *command {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cmd := range c.pending {
		if cmd.msgs != nil {
			return cmd
		}
	}
	return nil
}

func (c *Client) complete(cmd *command, err error) {
	done := cmd.base().done
	done <- err
	close(done)
	if cmd.msgs != nil {
		close(cmd.msgs)
	}
}

func (c *Client) closeWithError(err error) {
	c.mu.Lock()
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, cmd := range pending {
		c.complete(cmd, err)
	}
}

func (c *Client) read(tags <-chan string) {
	for tag := range tags {
		if tag == "*" {
			if cmd := c.findFetch(); cmd != nil {
				cmd.msgs <- 1 // want `send on closed channel: cmd.msgs may be closed concurrently by \(\*Client\).complete`
			}
			continue
		}
		if cmd := c.deleteByTag(tag); cmd != nil {
			c.complete(cmd, nil)
		}
	}
	c.closeWithError(nil)
}

// Dial starts a client's reader, and its sender, which writes commands
// and, when a write fails, completes every pending command.
func Dial(w io.Writer, tags, cmds <-chan string) *Client {
	c := &Client{w: w}
	go c.read(tags)
	go c.send(cmds)
	return c
}

func (c *Client) send(cmds <-chan string) {
	for tag := range cmds {
		c.Fetch(tag)
		c.Noop(tag)
	}
}

// Loose removes without the mutex: two removers may take one job.
type Loose struct {
	mu   sync.Mutex
	jobs []*job
}

type job struct{ done chan struct{} }

func (l *Loose) add() {
	j := &job{done: make(chan struct{})}
	l.mu.Lock()
	l.jobs = append(l.jobs, j)
	l.mu.Unlock()
}

func (l *Loose) take(i int) *job {
	j := l.jobs[i]
	l.jobs = append(l.jobs[:i], l.jobs[i+1:]...)
	return j
}

func (l *Loose) finish(j *job) {
	close(j.done) // want `close of closed channel: j.done may also be closed by \(\*Loose\).finish`
}

func (l *Loose) worker() {
	l.finish(l.take(0))
}

func (l *Loose) drain() {
	l.mu.Lock()
	jobs := l.jobs
	l.jobs = nil
	l.mu.Unlock()
	for _, j := range jobs {
		l.finish(j)
	}
}

// RunLoose starts a worker and a drain.
func RunLoose() {
	l := &Loose{}
	l.add()
	go l.worker()
	go l.drain()
}

// Twice puts one task in its list twice: two removers may each take a copy.
type Twice struct {
	mu    sync.Mutex
	tasks []*task
}

type task struct{ done chan struct{} }

func (t *Twice) push(k *task) {
	t.mu.Lock()
	t.tasks = append(t.tasks, k)
	t.mu.Unlock()
}

func (t *Twice) Submit() {
	k := &task{done: make(chan struct{})}
	t.push(k)
	t.push(k)
}

func (t *Twice) pop() *task {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, k := range t.tasks {
		t.tasks = append(t.tasks[:i], t.tasks[i+1:]...)
		return k
	}
	return nil
}

func (t *Twice) end(k *task) {
	close(k.done) // want `close of closed channel: k.done may also be closed by \(\*Twice\).end`
}

func (t *Twice) worker() {
	if k := t.pop(); k != nil {
		t.end(k)
	}
}

// RunTwice starts two workers.
func RunTwice() {
	t := &Twice{}
	t.Submit()
	go t.worker()
	go t.worker()
}

// Shared hands every request the one channel of its server: requests
// removed by two goroutines still close one channel.
type Shared struct {
	mu    sync.Mutex
	reqs  []*request
	reply chan int
}

type request struct{ reply chan int }

func (s *Shared) Send() {
	r := &request{}
	r.reply = s.reply
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	s.mu.Unlock()
}

func (s *Shared) pop() *request {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.reqs {
		s.reqs = append(s.reqs[:i], s.reqs[i+1:]...)
		return r
	}
	return nil
}

func (s *Shared) answer(r *request) {
	close(r.reply) // want `close of closed channel: r.reply may also be closed by \(\*Shared\).answer`
}

func (s *Shared) worker() {
	if r := s.pop(); r != nil {
		s.answer(r)
	}
}

// RunShared starts two workers.
func RunShared() {
	s := &Shared{reply: make(chan int)}
	s.Send()
	go s.worker()
	go s.worker()
}
