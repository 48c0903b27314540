package serveafter

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestAllowed(t *testing.T) {
	t.Setenv("ALLOWED", "a.example")
	setAllowed()
	if !allowed["a.example"] {
		t.Error("a.example not allowed")
	}
}

func TestGuard(t *testing.T) {
	w := httptest.NewRecorder()
	guard(hello)(w, httptest.NewRequest(http.MethodGet, "http://b.example/", nil))
	if w.Code != http.StatusForbidden {
		t.Errorf("status %d", w.Code)
	}
}
