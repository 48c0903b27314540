package mapwrites

import (
	"reflect"
	"testing"
	"time"
)

// TestResolveAll resolves two uncached hosts at once, each on its own
// goroutine. The lookups take 1 ms and 20 ms, so the two cache stores come
// 19 ms apart even on a loaded machine, and neither overlaps a map read.
func TestResolveAll(t *testing.T) {
	zone := map[string]struct {
		delay time.Duration
		addrs []string
	}{
		"a.example": {time.Millisecond, []string{"192.0.2.1"}},
		"b.example": {20 * time.Millisecond, []string{"192.0.2.2"}},
	}
	r := NewResolver(func(host string) ([]string, error) {
		z := zone[host]
		time.Sleep(z.delay)
		return z.addrs, nil
	})
	got := ResolveAll(r, []string{"a.example", "b.example"})
	want := [][]string{{"192.0.2.1"}, {"192.0.2.2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ResolveAll = %v, want %v", got, want)
	}
}
