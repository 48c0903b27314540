package oscsbarrier

import "testing"

func TestPhases(t *testing.T) {
	tab := &Table{entries: []string{"old"}, size: 1}
	Phases(tab, "new")
	if tab.size != 1 || tab.empty || tab.entries[0] != "new" {
		t.Errorf("table %+v, want just the new entry", tab)
	}
}
