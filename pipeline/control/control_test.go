package control

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/precog-dev/precog/shim/plan"
	"github.com/precog-dev/precog/shim/trace"
)

var (
	a = plan.Point{G: 1, Site: 10}
	b = plan.Point{G: 2, Site: 20}
)

var forcePlan = &plan.Plan{Mode: "force", Edges: []plan.Edge{{Before: a, After: b}}}

func TestReadResult(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		plan       *plan.Plan
		state      string
		final      bool
		reason     string
	}{
		{"final", `{"event":"plan","t_us":1}
{"event":"final","t_us":9,"state":"timed out","reason":"waited 1s"}
`, forcePlan, plan.TimedOut, true, "waited 1s"},
		{"crashed after the last step", `{"event":"plan","t_us":1}
{"event":"reached","t_us":2,"point":{"g":1,"site":10,"n":0,"kind":"Write"}}
{"event":"passed","t_us":3,"point":{"g":1,"site":10,"n":0},"seq":5}
{"event":"reached","t_us":4,"point":{"g":2,"site":20,"n":0,"kind":"Read"}}
{"event":"passed","t_us":5,"point":{"g":2,"site":20,"n":0},"seq":7}
{"event":"fin`, forcePlan, plan.Confirmed, false, ""},
		{"ended early", `{"event":"plan","t_us":1}
{"event":"reached","t_us":2,"point":{"g":1,"site":10,"n":0}}
{"event":"passed","t_us":3,"point":{"g":1,"site":10,"n":0},"seq":5}
`, forcePlan, plan.Diverged, false, "before reaching step (g 2, site 20, n 0)"},
		// raceatomic: the read's goroutine returned from the test
		// right after the read; the process ended while the step
		// waiting for it (b) was let go, before either was recorded
		// passed. The order held.
		{"ended after the last read", `{"event":"plan","t_us":1}
{"event":"reached","t_us":2,"point":{"g":2,"site":20,"n":0,"kind":"AtomicStore"}}
{"event":"reached","t_us":4,"point":{"g":1,"site":10,"n":0,"kind":"Read"}}
`, forcePlan, plan.Confirmed, false, ""},
		// The same with a store as the first step: not passed, it was
		// not done, and b waited for it.
		{"ended while held", `{"event":"plan","t_us":1}
{"event":"reached","t_us":2,"point":{"g":2,"site":20,"n":0,"kind":"AtomicStore"}}
{"event":"reached","t_us":4,"point":{"g":1,"site":10,"n":0,"kind":"Lock"}}
`, forcePlan, plan.Diverged, false, "step (g 2, site 20, n 0) waited for step (g 1, site 10, n 0)"},
		{"replay cut", `{"event":"plan","t_us":1}
{"event":"passed","t_us":3,"point":{"g":1,"site":10,"n":0},"pos":0,"of":2}
`, &plan.Plan{Mode: "replay", Order: []plan.Point{a, b}}, plan.Diverged, false, "position 1 of 2"},
	} {
		res, err := ReadResult(strings.NewReader(tc.file), tc.plan)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		reasonOK := strings.Contains(res.Reason, tc.reason)
		if tc.reason == "" {
			reasonOK = res.Reason == ""
		}
		if res.State != tc.state || res.Final != tc.final || !reasonOK {
			t.Errorf("%s: %+v", tc.name, res)
		}
	}
	if _, err := ReadResult(strings.NewReader("{\"event\":\n{}\n"), forcePlan); err == nil {
		t.Error("a broken line in the middle was accepted")
	}
}

func TestPointsAndReplayPlan(t *testing.T) {
	evs := []trace.Event{
		{Kind: trace.EvBegin, Goroutine: 1, Seq: 1},
		{Kind: trace.EvLock, Goroutine: 1, Site: 10, Seq: 2},
		{Kind: trace.EvRead, Goroutine: 1, Site: 11, Seq: 2, Sub: 1},
		{Kind: trace.EvLock, Goroutine: 2, Site: 10, Seq: 3},
		{Kind: trace.EvLock, Goroutine: 1, Site: 10, Seq: 4},
		{Kind: trace.EvSelect, Goroutine: 2, Site: 12, Seq: 5, Arg: -1},
	}
	pts := Points(evs)
	want := []plan.Point{{}, {G: 1, Site: 10, N: 0, Kind: "Lock"}, {G: 1, Site: 11, N: 0, Kind: "Read"},
		{G: 2, Site: 10, N: 0, Kind: "Lock"}, {G: 1, Site: 10, N: 1, Kind: "Lock"}, {G: 2, Site: 12, N: 0, Kind: "Select"}}
	for i := range want {
		if pts[i] != want[i] {
			t.Errorf("point %d: %+v, want %+v", i, pts[i], want[i])
		}
	}
	p := ReplayPlan(evs, func(g uint64) bool { return true })
	if len(p.Order) != 4 || p.Order[2] != want[4] {
		t.Errorf("order %+v", p.Order)
	}
	if len(p.Selects) != 1 || p.Selects[0].Case != -1 || p.Selects[0].Point != want[5] {
		t.Errorf("selects %+v", p.Selects)
	}
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := WritePlan(path, p); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back plan.Plan
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, p) {
		t.Errorf("the written plan reads back as %+v, want %+v", back, *p)
	}
}

func TestStable(t *testing.T) {
	evs := []trace.Event{
		{Kind: trace.EvBegin, Goroutine: 5, Peer: trace.NoParent},
		{Kind: trace.EvTestStart, Goroutine: 5, Name: "TestX"},
		{Kind: trace.EvBegin, Goroutine: 6, Peer: 5},
		{Kind: trace.EvBegin, Goroutine: 7, Peer: trace.NoParent},
	}
	stable := Stable(evs)
	for g, want := range map[uint64]bool{0: true, 5: true, 6: true, 7: false, 8: false} {
		if stable(g) != want {
			t.Errorf("Stable(%d) = %v", g, !want)
		}
	}
}

// TestCut: the positions a re-execution follows before the events it
// studies stop at each one's goroutine's next sync event, the event itself
// if it is one.
func TestCut(t *testing.T) {
	evs := []trace.Event{
		{Kind: trace.EvBegin, Goroutine: 1, Seq: 1},
		{Kind: trace.EvLock, Goroutine: 1, Site: 10, Seq: 2},  // position 0
		{Kind: trace.EvWrite, Goroutine: 1, Site: 11, Seq: 2}, // index 2
		{Kind: trace.EvLock, Goroutine: 2, Site: 10, Seq: 3},  // position 1
		{Kind: trace.EvRead, Goroutine: 2, Site: 13, Seq: 3},  // index 4
		{Kind: trace.EvUnlock, Goroutine: 2, Site: 12, Seq: 4},
		{Kind: trace.EvUnlock, Goroutine: 1, Site: 12, Seq: 5}, // position 3
		{Kind: trace.EvLock, Goroutine: 2, Site: 10, Seq: 6},   // position 4
		// A sleep passes no gate: not a position (an order naming it
		// waited for it forever).
		{Kind: trace.EvSleep, Goroutine: 2, Site: 14, Seq: 7},
		{Kind: trace.EvWake, Goroutine: 2, Site: 14, Seq: 8},
		// Nor does a mark before a call that may start goroutines.
		{Kind: trace.EvMark, Goroutine: 1, Site: 15, Seq: 9},
	}
	p, at := ReplayOrder(evs, nil)
	if len(p.Order) != 5 || !reflect.DeepEqual(at, []int{1, 3, 5, 6, 7}) {
		t.Fatalf("order %+v at %v", p.Order, at)
	}
	for _, c := range []struct {
		idx  []int
		want int
	}{
		{nil, 5},
		{[]int{2}, 3},    // goroutine 1's write: its Unlock at position 3 comes after it
		{[]int{4}, 2},    // goroutine 2's read: its Unlock at position 2
		{[]int{2, 4}, 2}, // both
		{[]int{3}, 1},    // a sync event is its own cut
		{[]int{7}, 4},
		{[]int{0}, 0}, // Begin: goroutine 1's first position
		{[]int{8}, 5}, // no position after it
	} {
		if got := Cut(evs, at, c.idx...); got != c.want {
			t.Errorf("Cut(%v) = %d, want %d", c.idx, got, c.want)
		}
	}
}

// TestResultVersion checks that the reader takes the file's version from
// its plan line (1 when it has none), refuses a newer one with a clear
// error, and finds what each reached step touched.
func TestResultVersion(t *testing.T) {
	v2 := `{"event":"plan","t_us":1,"version":2,"mode":"force"}
{"event":"reached","t_us":2,"point":{"g":1,"site":10,"n":0,"kind":"Write"},"addr":824634335240,"epoch":3}
{"event":"passed","t_us":3,"point":{"g":1,"site":10,"n":0},"seq":5}
{"event":"reached","t_us":4,"point":{"g":2,"site":20,"n":0,"kind":"Lock"}}
`
	res, err := ReadResult(strings.NewReader(v2), forcePlan)
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != 2 {
		t.Errorf("version %d, want 2", res.Version)
	}
	if addr, epoch, ok := res.Touched(a); !ok || addr != 824634335240 || epoch != 3 {
		t.Errorf("Touched(a) = %#x, %d, %v; want 0xc000012008, 3, true", addr, epoch, ok)
	}
	if _, _, ok := res.Touched(b); ok {
		t.Error("Touched(b) is known, but its reached line names no address")
	}
	old, err := ReadResult(strings.NewReader(`{"event":"plan","t_us":1}`+"\n"), forcePlan)
	if err != nil || old.Version != 1 {
		t.Errorf("a plan line without a version: %+v, %v; want version 1", old, err)
	}
	_, err = ReadResult(strings.NewReader(`{"event":"plan","t_us":1,"version":99}`+"\n"), forcePlan)
	if err == nil || !strings.Contains(err.Error(), "version 99") || !strings.Contains(err.Error(), "up to 2") {
		t.Errorf("a newer version: %v; want an error naming both versions", err)
	}
}
