package fft

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// slowTerminal is a terminal that takes five milliseconds per write: one
// millisecond was too little for a recorded slave on a loaded two-core
// machine (.ci/run saw the test fail when recorded).
type slowTerminal struct{ buf bytes.Buffer }

func (t *slowTerminal) Write(p []byte) (int, error) {
	time.Sleep(5 * time.Millisecond)
	return t.buf.Write(p)
}

// TestEndTime transforms four rows of 64 points on two slaves and checks the
// end time main prints. Main reads gEnd after its banner write, five
// milliseconds after starting the slaves; slave 0 normally set gEnd within
// microseconds.
func TestEndTime(t *testing.T) {
	matrix := make([][]complex128, 4)
	for i := range matrix {
		matrix[i] = make([]complex128, 64)
		for j := range matrix[i] {
			matrix[i][j] = complex(float64(i+j), 0)
		}
	}
	var term slowTerminal
	Run(&term, matrix, 2)
	lines := strings.Split(term.buf.String(), "\n")
	var end int64
	if len(lines) < 2 {
		t.Fatalf("output %q: want two lines", term.buf.String())
	}
	if _, err := fmt.Sscanf(lines[1], "End at %d", &end); err != nil {
		t.Fatalf("output line %q: %v", lines[1], err)
	}
	if end < 0 {
		t.Errorf("End at %d: main read gEnd before SlaveStart set it", end)
	}
}
