package doerbefore

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
	if s.last != "/a" { // after the response arrived
		t.Fatalf("last %q, want /a", s.last)
	}
}
