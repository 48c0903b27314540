package respbefore

import (
	"io"
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
	if s.last != "/a" || s.n != 1 { // after the response arrived
		t.Fatalf("last %q, %d requests, want /a and 1", s.last, s.n)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()

	req, err := http.NewRequest(http.MethodHead, ts.URL+"/b", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err = ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if s.last != "/b" || s.n != 2 {
		t.Fatalf("last %q, %d requests, want /b and 2", s.last, s.n)
	}
}
