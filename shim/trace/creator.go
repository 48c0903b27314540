package trace

import "strings"

// FuncPackage returns the import path of the package of fn, a function
// as the runtime names it in stacks and in EvCreator events:
// "net/http.(*Server).Serve", "example.com/dep.Handle.func1",
// "main.F[...]". The linker escapes the dots of the path's last element
// and a few other bytes as %xx (gopkg.in/yaml%2ev3.Unmarshal); FuncPackage
// undoes that. It returns "" for a name with no package.
func FuncPackage(fn string) string {
	if i := strings.IndexByte(fn, '['); i >= 0 {
		fn = fn[:i] // a generic function's type arguments may hold paths
	}
	slash := strings.LastIndexByte(fn, '/') + 1
	dot := strings.IndexByte(fn[slash:], '.')
	if dot <= 0 {
		return ""
	}
	return unescapePath(fn[:slash+dot])
}

// unescapePath undoes the linker's %xx escapes in a symbol's package path.
func unescapePath(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) {
			if h, ok := unhex(p[i+1]); ok {
				if l, ok := unhex(p[i+2]); ok {
					b.WriteByte(h<<4 | l)
					i += 2
					continue
				}
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
