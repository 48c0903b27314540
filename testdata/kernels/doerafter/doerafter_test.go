package doerafter

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestLast(t *testing.T) {
	s := &Store{}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	if _, err := Fetch(http.DefaultClient, ts.URL+"/a"); err != nil {
		t.Fatal(err)
	}
	last := s.last // BUG: the handler's goroutine may not have written it yet
	t.Logf("last %q", last)
}
