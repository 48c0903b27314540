package serveapart

import "net/http"

// DefaultMux is registered by the package's initializer, which runs in a
// test binary too: its handlers may serve while a test fills what they
// read. Reported.
var DefaultMux = initRoutes()

var warm = make(map[string]bool)

func initRoutes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_ = warm[r.Host]
	})
	return mux
}

func warmUp(host string) {
	warm[host] = true // want `concurrent map read and map write: warm is written here and read by func literal in initRoutes`
}
