package budget_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog/analyzers/budget"
)

func TestWork(t *testing.T) {
	b := budget.New(0, 0, 10)
	if !b.Spend(4) || !b.Spend(6) {
		t.Fatal("ran out within the budget")
	}
	if b.Reason() != "" || b.Exhausted() {
		t.Fatalf("exhausted at the limit: %q", b.Reason())
	}
	if b.Spend(1) {
		t.Fatal("spent past the limit")
	}
	if !strings.Contains(b.Reason(), "after 10 units of work") {
		t.Errorf("reason %q does not name the work limit", b.Reason())
	}
	if b.Spend(0) || !b.Exhausted() {
		t.Error("the budget came back after running out")
	}
	if b.Work() != 11 {
		t.Errorf("work %d, want 11", b.Work())
	}
}

// TestTime checks that the first Spend looks at the clock, and that a
// budget whose time has passed, in wall time and in the processor time the
// process spent, stops.
func TestTime(t *testing.T) {
	b := budget.New(time.Millisecond, 0, 0)
	if !b.Spend(1) {
		t.Fatal("ran out at the first Spend")
	}
	for deadline := time.Now().Add(time.Minute); b.Spend(1); {
		if time.Now().After(deadline) {
			t.Fatal("a minute of spending never passed a millisecond's budget")
		}
	}
	if !strings.Contains(b.Reason(), "(-limits.time)") {
		t.Errorf("reason %q does not name the time limit", b.Reason())
	}
}

// TestTimeWaiting checks that wall time in which the process does not run
// (a machine loaded by other jobs) does not use the budget up.
func TestTimeWaiting(t *testing.T) {
	b := budget.New(50*time.Millisecond, 0, 0)
	b.Spend(1)
	time.Sleep(200 * time.Millisecond)
	if b.Exhausted() {
		t.Errorf("200 ms asleep used up a 50 ms budget: %s", b.Reason())
	}
}

func TestSkips(t *testing.T) {
	b := budget.New(0, 0, 0)
	b.Skip("the rest of b")
	b.Skip("the rest of a")
	b.Skip("the rest of b")
	if got, want := b.Skipped(), []string{"the rest of a", "the rest of b"}; !slices.Equal(got, want) {
		t.Errorf("skipped %q, want %q", got, want)
	}
}

func TestNilIsUnlimited(t *testing.T) {
	var b *budget.Budget
	if !b.Spend(1<<40) || b.Exhausted() || b.Reason() != "" || b.Work() != 0 {
		t.Error("a nil budget is limited")
	}
	b.Skip("x")
	if b.Skipped() != nil {
		t.Error("a nil budget recorded a skip")
	}
}
