// Package typeswitch: a helper takes any value and updates only the
// results among them (a type assertion to *Result). A worker goroutine
// hands it the jobs it runs, the caller its jobs and results: a job never
// passes the assertion, so the worker's calls write no result, and the
// caller's results are not the worker's. Silent; a result that the
// package writes while a goroutine runs the helper on it is reported.
package typeswitch

type Job struct {
	name string
}

type Result struct {
	attrs map[string]string
}

type Worker struct {
	jobs chan *Job
}

func (w *Worker) run() {
	for j := range w.jobs {
		audit(j)
	}
}

func audit(v any) {
	if r, ok := v.(*Result); ok {
		r.attrs["audited"] = "yes" // want `concurrent map writes: r.attrs is written here by several goroutines with no common lock`
	}
}

func describe(v any) string {
	switch v := v.(type) {
	case *Result:
		v.attrs["described"] = "yes"
		return "result"
	case *Job:
		return "job " + v.name
	}
	return "unknown"
}

// Start hands a job to a worker goroutine, then audits the job and its
// result on the caller's goroutine while the worker runs the job.
func Start(name string) string {
	w := &Worker{jobs: make(chan *Job, 1)}
	go w.run()
	j := &Job{name: name}
	w.jobs <- j
	audit(j)
	res := &Result{attrs: map[string]string{}}
	audit(res)
	return describe(j) + describe(res)
}

// latest is the package's current result.
var latest = &Result{attrs: map[string]string{}}

// Publish audits the current result on another goroutine while writing
// it: reported (and two Publish calls audit it at once).
func Publish() {
	go audit(latest)
	latest.attrs["published"] = "yes" // want `concurrent map writes: latest.attrs is written here and by audit with no common lock`
}
