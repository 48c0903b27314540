package mysqld4

import (
	"slices"
	"testing"
)

// TestLoadNoDatabase loads rows in a session whose USE named no existing
// database: that LOAD DATA may fail, but must not crash the server, which
// then serves a session that did select a database. (The test does not
// require an error from the first LOAD DATA: once the crash is suppressed
// the loader would report success, a failure revealing the missing check
// but no corrupted value; see the package comment.)
func TestLoadNoDatabase(t *testing.T) {
	s := NewServer()
	defer s.Close()
	thd := &THD{}
	s.Use(thd, "")
	t.Logf("LOAD DATA with no database: %v", s.LoadData(thd, "t1", []string{"a", "b"}))

	thd2 := &THD{}
	s.Use(thd2, "test")
	if err := s.LoadData(thd2, "t1", []string{"c"}); err != nil {
		t.Fatal(err)
	}
	if rows := s.databases["test"].tables["t1"]; !slices.Equal(rows, []string{"c"}) {
		t.Errorf("test.t1 holds %q, want [c]", rows)
	}
}
