package eventuallymsg

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReset waits for a reset with require.Eventually: the message's
// reads of seq and mid come before the condition's writes (silent). Then
// it checks with assert.Never that no reset comes while nothing asks for
// one: Never's deadline passes while its condition's only run sleeps, and
// the read of checks after the call races with the run's write
// (reported); the message's read of checks, before the call, does not.
// One test: in a package with more than one, precog test's CFP selection
// decides which of them it detects in.
func TestReset(t *testing.T) {
	a := NewAssociation()
	defer a.Close()
	s := NewStream(9, 3)
	a.Reset(s)
	var (
		seq uint16
		mid uint32
	)
	require.Eventually(t, func() bool {
		seq, mid = s.Counters()
		return seq == 0 && mid == 0
	}, 5*time.Second, 10*time.Millisecond,
		"reset should clear the counters: seq=%d mid=%d", seq, mid)
	if seq != 0 || mid != 0 { // after the call: the join of the runs
		t.Fatalf("seq=%d mid=%d after the reset", seq, mid)
	}

	var checks int
	finished := make(chan struct{})
	assert.Never(t, func() bool {
		defer close(finished)
		time.Sleep(200 * time.Millisecond) // far longer than Never waits
		seq, _ := s.Counters()
		checks++
		return seq != 0
	}, 10*time.Millisecond, time.Millisecond, "checks=%d", checks)
	n := checks // BUG: the run may not have counted yet
	<-finished
	if n > 1 {
		t.Fatalf("%d checks", n)
	}
}
