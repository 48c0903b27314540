// Package handlers: the HTTP server runs handlers on a goroutine per
// request, so every handler context is Multi.
package handlers

import "net/http"

type api struct{}

func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) { // want `^ctx: HTTP handler ServeHTTP multi$`
	go a.audit()
}

func (a *api) audit() {} // want `^ctx: go statement audit multi$`

func health(w http.ResponseWriter, r *http.Request) {} // want `^ctx: HTTP handler health multi$`

func index(w http.ResponseWriter, r *http.Request) {} // want `^ctx: HTTP handler index multi$`

func status(w http.ResponseWriter, r *http.Request) {} // want `^ctx: HTTP handler status multi$`

// Registered through HandleFunc of its conversion to http.HandlerFunc: one
// context, the conversion's, not a second one for the HandleFunc.
func both(w http.ResponseWriter, r *http.Request) {} // want `^ctx: HTTP handler both multi$`

func Routes(mux *http.ServeMux) { // want `^ctx: caller$`
	mux.Handle("/api", &api{})
	mux.Handle("/health", http.HandlerFunc(health))
	mux.HandleFunc("/", index)
	http.HandleFunc("/status", status)
	mux.HandleFunc("/both", http.HandlerFunc(both))
	mux.Handle("/inline", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})) // want `^ctx: HTTP handler Routes\$1 multi$`
}
