package suiterun

import "testing"

func TestStatsSuite(t *testing.T) {
	s := &StatsSuite{}
	RunSuite(t, s)
	if s.Runs() != 4 || len(s.Failures) > 0 {
		t.Errorf("%d runs, failures %q", s.Runs(), s.Failures)
	}
}
