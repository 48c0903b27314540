package recursivechan

import "sync"

// Early is early exported and calling itself: no other code of the
// package enters it, so it runs on its importer's goroutine too, and its
// close before the Wait races with the sends of the goroutines it starts.
func Early(jobs []*Job) {
	var wg sync.WaitGroup
	ch := make(chan string, len(jobs))
	for _, j := range jobs {
		wg.Add(1)
		go func(j *Job) {
			defer wg.Done()
			if j.Group != nil {
				Early(j.Group)
			}
			ch <- j.Name // want `send on closed channel: ch may be closed concurrently by Early`
		}(j)
	}
	close(ch)
	wg.Wait()
}

// Concurrently is concurrently exported and calling itself: each call
// closes its own channel after its own Wait (silent).
func Concurrently(jobs []*Job) []string {
	var wg sync.WaitGroup
	results := make([]string, 0, len(jobs))
	ch := make(chan string, len(jobs))
	for _, j := range jobs {
		wg.Add(1)
		go func(j *Job) {
			defer wg.Done()
			if j.Group != nil {
				for _, r := range Concurrently(j.Group) {
					ch <- r
				}
				return
			}
			ch <- j.Name
		}(j)
	}
	wg.Wait()
	close(ch)
	for r := range ch {
		results = append(results, r)
	}
	return results
}
