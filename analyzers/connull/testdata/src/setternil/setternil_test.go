package setternil

import "testing"

func TestListener(t *testing.T) {
	l := &Listener{}
	l.Start()
	l.Init(nil)
}
