package instrument

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/precog-dev/precog/shim/trace"
)

// An overlay maps original file paths to the files the go command builds
// instead (go help build, -overlay).
type overlay struct {
	replace map[string]string
}

func newOverlay() *overlay { return &overlay{replace: make(map[string]string)} }

func (o *overlay) add(orig, repl string) { o.replace[orig] = repl }

// json renders the overlay file. encoding/json sorts map keys, so the bytes
// depend only on the entries.
func (o *overlay) json() []byte {
	data, err := json.MarshalIndent(struct {
		Replace map[string]string
	}{o.replace}, "", "\t")
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return append(data, '\n')
}

// siteTableJSON renders the site table, sorted by ID.
func siteTableJSON(sites []trace.Site) []byte {
	sites = slices.Clone(sites)
	slices.SortFunc(sites, func(a, b trace.Site) int { return cmp.Compare(a.ID, b.ID) })
	if sites == nil {
		sites = []trace.Site{}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "\t")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(trace.SiteTable{Sites: sites}); err != nil {
		panic(err) // plain data always marshals
	}
	return []byte(b.String())
}
