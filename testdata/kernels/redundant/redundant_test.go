package redundant

import "testing"

func TestStart(t *testing.T) {
	c := &Config{}
	Start(c, 3)
	if c.mode != modeParallel || !c.ready {
		t.Errorf("config %+v, want ready in parallel mode", c)
	}
}
