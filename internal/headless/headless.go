// Package headless renders pages in headless Chromium for the tests that
// check what precog's HTML pages show a person (precog cover -html, the
// report of precog test -html): the DOM after the browser parsed and laid
// it out, and a screenshot.
//
// Each run gets a fresh profile directory under the test's temporary
// directory, so nothing is left behind, and is bounded by Timeout. A
// machine without Chromium skips the test, saying how to install it
// (Debian's package).
package headless

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Timeout bounds one run of the browser.
const Timeout = 90 * time.Second

// Browser returns the path of a headless-capable Chromium, or skips the
// test with a message naming what to install.
func Browser(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH: the page is not checked in a browser (apt-get install chromium)")
	return ""
}

// run runs the browser on page (a file) with extra arguments and returns
// its standard output.
func run(t testing.TB, bin, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+abs)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.Bytes())
	}
	return out
}

// DOM returns the page's DOM as the browser has it after loading the
// page, serialized as HTML.
func DOM(t testing.TB, bin, page string) string {
	t.Helper()
	return string(run(t, bin, page, "--dump-dom"))
}

// Screenshot renders the page in a window of width by height pixels and
// returns the screenshot; if save is not "", the PNG is also copied there.
func Screenshot(t testing.TB, bin, page string, width, height int, save string) image.Image {
	t.Helper()
	shot := filepath.Join(t.TempDir(), "shot.png")
	run(t, bin, page, "--screenshot="+shot, "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "--hide-scrollbars")
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if save != "" {
		if err := os.WriteFile(save, data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return img
}

// Count returns how many pixels of img are within 3 of the colour rgb
// (0xRRGGBB) in each channel.
func Count(img image.Image, rgb uint32) int {
	want := [3]uint32{rgb >> 16 & 0xff, rgb >> 8 & 0xff, rgb & 0xff}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r>>8, want[0]) && near(g>>8, want[1]) && near(bl>>8, want[2]) {
				n++
			}
		}
	}
	return n
}

func near(a, b uint32) bool { return a+3 >= b && b+3 >= a }
