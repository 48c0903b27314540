package instrument

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestAsmNames checks which names of a package's assembly keep their
// functions' signatures (localCallees): every name after a middle dot,
// none for an empty file, and none at all (ok false) for a file that
// cannot be read or names a symbol some other way.
func TestAsmNames(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty.s", "// Needed for the body-less linkname declarations.\n")
	calls := write("add_amd64.s", "#include \"textflag.h\"\n\nTEXT ·add(SB),NOSPLIT,$0-24\n\tCALL ·helper(SB)\n\tCALL ·node·keyAt(SB)\n\tRET\n")
	header := write("defs.h", "#define H ·fromHeader\n")
	cfile := write("other.c", "int ·notAsm;\n") // not assembly: not read
	method := write("method.s", "TEXT ·(*T)·m(SB),0,$0\n")

	for _, tc := range []struct {
		files []string
		want  []string
		ok    bool
	}{
		{[]string{empty}, nil, true},
		{[]string{empty, calls, header, cfile}, []string{"add", "fromHeader", "helper", "keyAt", "node"}, true},
		{[]string{calls, method}, nil, false},
		{[]string{filepath.Join(dir, "missing.s")}, nil, false},
	} {
		names, ok := asmNames(tc.files)
		var got []string
		for n := range names {
			got = append(got, n)
		}
		slices.Sort(got)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("asmNames(%v) = %v, %v; want %v, %v", tc.files, got, ok, tc.want, tc.ok)
		}
	}
}
