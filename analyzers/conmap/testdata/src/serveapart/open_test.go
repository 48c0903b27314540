package serveapart

import (
	"net/http/httptest"
	"testing"
)

func TestServeOpen(t *testing.T) {
	ts := httptest.NewServer(openRoutes())
	get(t, ts.URL)
}

func TestFillOpen(t *testing.T) {
	setOpen()
}
