package condq

// GetLoop is RIGHT: it checks the queue again each time Wait returns.
func (q *Queue) GetLoop() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 {
		q.cond.Wait()
	}
	s := q.items[0]
	q.items = q.items[1:]
	return s
}
