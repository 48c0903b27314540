package mapreuse

import (
	"strconv"
	"testing"
)

// words fill each tally's map to a few kilobytes of garbage.
var words = func() []string {
	var ws []string
	for i := 0; i < 50; i++ {
		ws = append(ws, "w"+strconv.Itoa(i))
	}
	return ws
}()

// TestTallies runs parallel subtests that each make tallies, one after
// another, dropping each: the collections their garbage starts make it
// likely that a new map takes the address of one another subtest dropped.
func TestTallies(t *testing.T) {
	for i := 0; i < 5; i++ {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			for j := 0; j < 500; j++ {
				tl := NewTally()
				tl.Add(words...)
				tl.Add("w0")
				if tl.Count("w0") != 2 {
					t.Fatalf("count %d", tl.Count("w0"))
				}
			}
		})
	}
}
