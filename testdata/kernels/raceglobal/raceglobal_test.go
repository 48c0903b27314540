package raceglobal

import "testing"

func TestServe(t *testing.T) {
	Serve(3)
	if requests != 3 {
		t.Errorf("requests = %d, want 3", requests)
	}
}
