package replychan

import "time"

// GetBuffered is RIGHT: the reply channel has room for the answer and is
// never closed, so the server's send never blocks nor panics, whether or
// not the client still waits.
func (s *Server) GetBuffered(key string, timeout time.Duration) (string, error) {
	reply := make(chan string, 1)
	s.reqs <- request{key, reply}
	select {
	case v := <-reply:
		return v, nil
	case <-time.After(timeout):
		return "", errTimeout
	}
}
