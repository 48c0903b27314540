package lockrange

import "maps"

// Broadcast is Notify with the lock held around the range: the loop's
// body runs with h.mu held.
func (h *Hub) Broadcast() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for name := range maps.Keys(h.subs) {
		if h.sink != nil {
			h.sink.n += len(name)
		}
	}
}
