package prodcons

import "testing"

func TestTrxQueue(t *testing.T) {
	if got := Run(&Trx{id: 1}, "SELECT 1"); got != "SELECT 1" {
		t.Errorf("consumer printed %q", got)
	}
}
