// Package objdone: a result set through an object before that object's
// own channel is closed, read after a receive from the channel through
// the same object, as mcp-go's task table does (completeTask sets
// entry.result and closes entry.done; each test starts
// executeTaskTool on its own entry and reads entry.result after
// <-entry.done). Many goroutines run the closing functions, and two
// functions close, so no one goroutine makes every close; but each close
// follows a write of the location through the object whose channel it
// closes, and the receive took the close of the reader's own object:
// silent. Near misses, reported: a closer that writes nothing before its
// close, a write after the close, and a read after a receive from
// another object's channel.
package objdone

import (
	"errors"
	"sync"
	"testing"
	"time"
)

type task struct{ status string }

// job is the object: its result fields and the channel closed once they
// are set.
type job struct {
	task   *task
	result string
	done   chan struct{}
}

func newJob() *job { return &job{task: &task{}, done: make(chan struct{})} }

type server struct{ mu sync.Mutex }

// finish sets the result under the lock, then closes.
func (s *server) finish(j *job, result string) {
	s.mu.Lock()
	j.task.status = "completed"
	j.result = result
	s.mu.Unlock()
	close(j.done)
}

// abort sets the status on each branch, then closes.
func (s *server) abort(j *job, why error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if why != nil {
		j.task.status = "failed: " + why.Error()
		j.result = why.Error()
	} else {
		j.task.status = "cancelled"
		j.result = ""
	}
	close(j.done)
}

// TestFinish and TestFinishAgain start finish on their own jobs.
func TestFinish(t *testing.T) {
	s := &server{}
	j := newJob()
	go s.finish(j, "a")
	<-j.done
	t.Log(j.task.status, j.result)
}

func TestFinishAgain(t *testing.T) {
	s := &server{}
	j := newJob()
	go s.finish(j, "b")
	<-j.done
	t.Log(j.result)
}

// TestAbort waits in a select whose other case is a timeout.
func TestAbort(t *testing.T) {
	s := &server{}
	j := newJob()
	go s.abort(j, errors.New("stop"))
	select {
	case <-j.done:
	case <-time.After(time.Second):
		t.Fatal("abort did not close")
	}
	t.Log(j.task.status)
}

// note is closed from a literal that captures it.
type note struct {
	text string
	done chan struct{}
}

// TestClosure and TestClosureAgain close from literals that capture
// the object.
func TestClosure(t *testing.T) {
	n := &note{done: make(chan struct{})}
	go func() {
		n.text = "c"
		close(n.done)
	}()
	<-n.done
	t.Log(n.text)
}

func TestClosureAgain(t *testing.T) {
	n := &note{done: make(chan struct{})}
	go func() {
		n.text = "d"
		close(n.done)
	}()
	<-n.done
	t.Log(n.text)
}

// TestSubtests waits in two subtests, one after the other: the later
// read follows the earlier subtest's receive too.
func TestSubtests(t *testing.T) {
	s := &server{}
	t.Run("first", func(t *testing.T) {
		j := newJob()
		go s.finish(j, "d")
		<-j.done
		t.Log(j.result)
	})
	t.Run("second", func(t *testing.T) {
		j := newJob()
		go s.abort(j, nil)
		<-j.done
		t.Log(j.task.status)
	})
}

// TestOther reads one job's result after another job's channel.
func TestOther(t *testing.T) {
	s := &server{}
	j, other := newJob(), newJob()
	go s.finish(j, "e")
	go s.finish(other, "f")
	<-other.done
	t.Log(j.result) // want `j.result may be read before it is set`
	<-j.done
}

// entry has a closer that writes nothing first.
type entry struct {
	result string
	done   chan struct{}
}

func (s *server) complete(e *entry) {
	e.result = "done"
	close(e.done)
}

// drop closes with no result set.
func (s *server) drop(e *entry) { close(e.done) }

func TestComplete(t *testing.T) {
	s := &server{}
	e := &entry{done: make(chan struct{})}
	go s.complete(e)
	<-e.done
	t.Log(e.result) // want `e.result may be read before it is set`
}

func TestCompleteAgain(t *testing.T) {
	s := &server{}
	e := &entry{done: make(chan struct{})}
	go s.complete(e)
	<-e.done
	t.Log(e.result) // want `e.result may be read before it is set`
}

func TestDrop(t *testing.T) {
	s := &server{}
	e := &entry{done: make(chan struct{})}
	go s.drop(e)
	<-e.done
	t.Log(e.result) // not a con-uninit shape: no goroutine TestDrop starts writes it
}

// late closes before it writes.
type late struct {
	result string
	done   chan struct{}
}

func (s *server) run(l *late) {
	close(l.done)
	l.result = "late"
}

func TestLate(t *testing.T) {
	s := &server{}
	l := &late{done: make(chan struct{})}
	go s.run(l)
	<-l.done
	t.Log(l.result) // want `l.result may be read before it is set`
}

func TestLateAgain(t *testing.T) {
	s := &server{}
	l := &late{done: make(chan struct{})}
	go s.run(l)
	<-l.done
	t.Log(l.result) // want `l.result may be read before it is set`
}

// byVar's channel is made into a variable and stored into the field; a
// close through the variable (an early failure that sets nothing) is
// filed under the make site, not the field, so the field's closes are
// not all the receive may take: reported.
type byVar struct {
	result string
	done   chan struct{}
}

func (s *server) settle(b *byVar) {
	b.result = "settled"
	close(b.done)
}

func TestByVar(t *testing.T) {
	s := &server{}
	ch := make(chan struct{})
	b := &byVar{done: ch}
	go s.settle(b)
	go func() {
		if testing.Short() {
			close(ch)
		}
	}()
	<-b.done
	t.Log(b.result) // want `b.result may be read before it is set`
}

func TestByVarAgain(t *testing.T) {
	s := &server{}
	b := &byVar{done: make(chan struct{})}
	go s.settle(b)
	<-b.done
	t.Log(b.result) // want `b.result may be read before it is set`
}
