package cli

import (
	"bytes"
	"strings"
	"testing"
)

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b)
	p.Status("not a terminal")
	p.Clear()
	if b.Len() != 0 {
		t.Errorf("progress on a buffer wrote %q", b.String())
	}
	p = &Progress{w: &b, on: true}
	p.Status("instrumenting")
	p.Status("[1/2]")
	p.Status(strings.Repeat("x", 120))
	p.Clear()
	want := "\rinstrumenting" + "\r[1/2]" + strings.Repeat(" ", 8) + "\r" + strings.Repeat("x", 97) + "..." + "\r" + strings.Repeat(" ", 100) + "\r"
	if b.String() != want {
		t.Errorf("progress wrote %q\nwant %q", b.String(), want)
	}
	b.Reset()
	p.Status("again")
	p.Off()
	p.Status("after Off")
	if want := "\ragain\r     \r"; b.String() != want {
		t.Errorf("Off: wrote %q, want %q", b.String(), want)
	}
}
