package golden

import (
	"io/fs"
	"net/http"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

type greeter struct{ greeting string }

func (g *greeter) use(f func()) { f() }

// hand: a function literal passed to a function of a package that is not
// instrumented becomes precog_shim.Hand(&precog_hS, S, LIT), LIT calling
// precog_shim.Handed(&precog_hS, S) first, with the handle declared at the
// top of the enclosing function's body.
func hand(g *greeter, mux *http.ServeMux, xs []int, names []string, root string) {
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(g.greeting)) }) // a method: handed
	mux.Handle("/h", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))                   // converted to a named func type: handed, inside the conversion
	_ = filepath.Walk(root, func(string, fs.FileInfo, error) error { return nil })                    // a named func-type parameter (filepath.WalkFunc): handed
	slices.SortFunc(xs, func(a, b int) int { return a - b })                                          // generic, inferred: Hand keeps the type
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })                             // run on the caller's goroutine: Handed records nothing there
	for i := range 3 {
		mux.HandleFunc("/"+names[i], func(http.ResponseWriter, *http.Request) { _ = i }) // in a loop: one handle, one site
	}
	for x := range slices.Values(xs) {
		_ = strings.IndexFunc(names[x], func(r rune) bool { return r == 'x' }) // in a range-over-func body: not handed (an iterator may run it elsewhere)
	}
	mux.HandleFunc("/n", func(w http.ResponseWriter, _ *http.Request) {
		_ = strings.IndexFunc(g.greeting, func(r rune) bool { return r == 'x' }) // nested: the handle in the outer literal's body
	})
	g.use(func() {})                                                           // this package's: not handed
	f := func(r rune) bool { return r == 'y' }                                 // not an argument
	_ = strings.IndexFunc(g.greeting, f)                                       // a function value: not handed
	defer mux.HandleFunc("/d", func(http.ResponseWriter, *http.Request) {})    // deferred: not handed
	go mux.HandleFunc("/g", func(http.ResponseWriter, *http.Request) {})       // a go statement's: not handed
	_ = strings.IndexFunc(g.greeting, (func(r rune) bool { return r == 'z' })) // in parentheses: handed
}

// A literal outside a function body is not handed.
var lower = strings.Map(func(r rune) rune { return r }, "X")
