// Package samewriter: a setter whose type switch stores into one map in
// each case, against a reader on another goroutine. The three writes pair
// with the same read: one report, at the first write, that lists the
// other two. A write in another function is reported on its own.
package samewriter

type msg struct{ data map[string]any }

func (m *msg) set(k string, v any) {
	switch v := v.(type) {
	case string:
		m.data[k] = v // want `concurrent map read and map write: m.data is written here and read by \(\*msg\).get`
	case int:
		m.data[k] = v
	case []string:
		m.data[k] = v
	}
}

func (m *msg) get(k string) any { return m.data[k] }

func (m *msg) reset() {
	m.data["reset"] = true // want `concurrent map read and map write: m.data is written here and read by \(\*msg\).get`
}

// Run sets and resets on one goroutine, reads on another.
func Run() {
	m := &msg{data: map[string]any{}}
	go func() {
		m.set("a", "b")
		m.set("n", 1)
		m.set("l", []string{"x"})
		m.reset()
	}()
	_ = m.get("a")
}
