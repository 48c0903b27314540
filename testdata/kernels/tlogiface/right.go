package tlogiface

// Shutdown stops the queue and waits for the worker's last log.
func (p *Pool) Shutdown() {
	close(p.jobs)
	<-p.done
}
