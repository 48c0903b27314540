// Package recursivechan: lefthook's concurrently (held-out rehearsal 46)
// makes a results channel per call, starts a goroutine per job that
// sends on it, waits for them all on its own WaitGroup and closes it; a
// group job calls concurrently again from its goroutine with a channel
// of its own, so the nested call's close and the outer call's sends
// touch two channels (concurrently: silent). Reported: the nested call
// handed the caller's channel (shared), a package variable's channel that
// every call closes (global), and a call's own channel closed before its
// Wait (early), before another round of sends (restart), or after a
// Wait that its goroutines' own Adds may come after (selfAdd).
package recursivechan

import "sync"

type Job struct {
	Name  string
	Group []*Job
}

func runJob(j *Job) string {
	if j.Group != nil {
		out := ""
		for _, r := range concurrently(j.Group) {
			out += r
		}
		return out
	}
	return j.Name
}

// concurrently runs the jobs, each group's in a nested call of its own.
func concurrently(jobs []*Job) []string {
	var wg sync.WaitGroup
	results := make([]string, 0, len(jobs))
	ch := make(chan string, len(jobs))
	for _, j := range jobs {
		wg.Add(1)
		go func(j *Job) {
			defer wg.Done()
			ch <- runJob(j)
		}(j)
	}
	wg.Wait()
	close(ch)
	for r := range ch {
		results = append(results, r)
	}
	return results
}

func runshared(j *Job, ch chan string) string {
	if j.Group != nil {
		shared(j.Group, ch)
		return ""
	}
	return j.Name
}

// shared hands its channel to the nested call, which closes it while the
// caller's other goroutines may still send.
func shared(jobs []*Job, ch chan string) {
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func(j *Job) {
			defer wg.Done()
			ch <- runshared(j, ch) // want `send on closed channel: ch may be closed concurrently by shared`
		}(j)
	}
	wg.Wait()
	close(ch) // want `close of closed channel: ch may also be closed by shared`
}

// out is one channel for every call of global.
var out = make(chan string, 8)

func runGlobal(j *Job) string {
	if j.Group != nil {
		global(j.Group)
		return ""
	}
	return j.Name
}

// global's channel is the package's, closed by the nested call too.
func global(jobs []*Job) {
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func(j *Job) {
			defer wg.Done()
			out <- runGlobal(j) // want `send on closed channel: out may be closed concurrently by global`
		}(j)
	}
	wg.Wait()
	close(out) // want `close of closed channel: out may also be closed by global`
}

func runearly(j *Job) string {
	if j.Group != nil {
		early(j.Group)
	}
	return j.Name
}

// early closes its own channel before it waits: its goroutines may send
// after the close.
func early(jobs []*Job) {
	var wg sync.WaitGroup
	ch := make(chan string, len(jobs))
	for _, j := range jobs {
		wg.Add(1)
		go func(j *Job) {
			defer wg.Done()
			ch <- runearly(j) // want `send on closed channel: ch may be closed concurrently by early`
		}(j)
	}
	close(ch)
	wg.Wait()
}

func runrestart(j *Job) string {
	if j.Group != nil {
		restart(j.Group)
	}
	return j.Name
}

// restart closes its own channel after the first round's Wait, and then
// starts a second round that sends on it.
func restart(jobs []*Job) {
	var wg sync.WaitGroup
	ch := make(chan string, len(jobs))
	for i := 0; i < 2; i++ {
		for _, j := range jobs {
			wg.Add(1)
			go func(j *Job) {
				defer wg.Done()
				ch <- runrestart(j) // want `send on closed channel: ch may be closed concurrently by restart`
			}(j)
		}
		wg.Wait()
		if i == 0 {
			close(ch)
		}
	}
}

// Run runs the jobs each way.
func Run(jobs []*Job) []string {
	shared(jobs, make(chan string, len(jobs)))
	global(jobs)
	early(jobs)
	restart(jobs)
	selfAdd(jobs)
	return concurrently(jobs)
}

func runSelfAdd(j *Job) string {
	if j.Group != nil {
		selfAdd(j.Group)
	}
	return j.Name
}

// selfAdd's goroutines count themselves: its Wait may return before one
// of them has added, and the close then comes before that one's send.
func selfAdd(jobs []*Job) {
	var wg sync.WaitGroup
	ch := make(chan string, len(jobs))
	for _, j := range jobs {
		go func(j *Job) {
			wg.Add(1)
			defer wg.Done()
			ch <- runSelfAdd(j) // want `send on closed channel: ch may be closed concurrently by selfAdd`
		}(j)
	}
	wg.Wait()
	close(ch)
}
