package fft

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// slowTerminal is a terminal that takes 5ms per write, as kernels/fft.
type slowTerminal struct{ buf bytes.Buffer }

func (t *slowTerminal) Write(p []byte) (int, error) {
	time.Sleep(5 * time.Millisecond)
	return t.buf.Write(p)
}

// runs counts the transforms of the process.
var runs int

// run transforms a rows x cols matrix on p slaves and checks the end time
// main prints, which must not be negative.
func run(t *testing.T, rows, cols, p int, inverse bool) [][]complex128 {
	t.Helper()
	matrix := make([][]complex128, rows)
	for i := range matrix {
		matrix[i] = make([]complex128, cols)
		for j := range matrix[i] {
			matrix[i][j] = complex(float64(i+j), 0)
		}
	}
	// go test runs the inputs in one process: gEnd may hold the end of
	// an earlier one (precog runs each test in a process of its own).
	stale := runs > 0
	runs++
	var term slowTerminal
	Run(&term, matrix, p, inverse)
	lines := strings.Split(term.buf.String(), "\n")
	var end int64
	if len(lines) < 2 {
		t.Fatalf("output %q: want two lines", term.buf.String())
	}
	if _, err := fmt.Sscanf(lines[1], "End at %d", &end); err != nil {
		t.Fatalf("output line %q: %v", lines[1], err)
	}
	if end < 0 && !stale {
		t.Errorf("End at %d: main read gEnd before SlaveStart set it", end)
	}
	return matrix
}

// The paper's inputs: one command-line option each.

func TestForward(t *testing.T) { run(t, 4, 64, 2, false) }

func TestInverse(t *testing.T) { run(t, 4, 64, 2, true) }

func TestWide(t *testing.T) { run(t, 2, 256, 2, false) }

func TestManySlaves(t *testing.T) { run(t, 8, 32, 4, false) }
