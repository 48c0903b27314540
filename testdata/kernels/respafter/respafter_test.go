package respafter

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestLast(t *testing.T) {
	s := &Store{}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/a")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	last := s.last // BUG: the handler may not have written it yet
	t.Logf("last %q", last)
}
