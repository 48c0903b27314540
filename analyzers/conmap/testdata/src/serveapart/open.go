package serveapart

import (
	"net"
	"net/http"
	"os"
)

// The same, but a test leaves its test server open (open_test.go): its
// handlers may still serve while the next test fills the map. Reported.
var open = make(map[string]bool)

func setOpen() {
	open[os.Getenv("OPEN")] = true // want `concurrent map read and map write: open is written here and read by func literal in openRoutes`
}

func openRoutes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_ = open[r.Host]
	})
	return mux
}

// ListenOpen fills the map, then serves.
func ListenOpen(ln net.Listener) error {
	setOpen()
	return http.Serve(ln, openRoutes())
}
