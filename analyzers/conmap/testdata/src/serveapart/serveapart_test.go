package serveapart

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func get(t *testing.T, url string) {
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

func TestServe(t *testing.T) {
	ts := httptest.NewServer(routes())
	defer ts.Close()
	get(t, ts.URL)
}

func TestFill(t *testing.T) {
	setAllowed()
	rec := httptest.NewRecorder()
	h := mw(hello)
	h(rec, httptest.NewRequest("GET", "/", nil))
	setAllowed()
}

func TestFillWhileServing(t *testing.T) {
	ts := httptest.NewServer(routes())
	defer ts.Close()
	go get(t, ts.URL)
	markLate("x")
}

func TestWarm(t *testing.T) {
	warmUp("x")
}
