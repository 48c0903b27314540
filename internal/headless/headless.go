// Package headless renders pages in headless Chromium for the tests that
// check what precog's HTML pages show a person (precog cover -html, the
// report of precog test -html): the DOM after the browser parsed and laid
// it out, and a screenshot.
//
// Each run gets a fresh profile directory under the test's temporary
// directory, so nothing is left behind, and is bounded by Timeout. A
// machine without Chromium skips the test, saying how to install it
// (Debian's package), and so does one whose Chromium crashes even on an
// empty page.
package headless

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
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
//
// Chromium sometimes dies of a signal whatever the page: a CI machine's
// run crashed with SIGSEGV at start-up while the same tests passed in the
// same run's other packages. A crash is therefore tried once more, and if
// that crashes too, the browser is tried on an empty page: a browser that
// cannot show even that is as good as missing here, and the test is
// skipped saying so. A crash on this page alone, an exit with an error,
// or the timeout fails the test.
func run(t testing.TB, bin, page string, args ...string) []byte {
	t.Helper()
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, err := launch(t, bin, abs, args)
	if crashed(err) {
		out, stderr, err = launch(t, bin, abs, args)
		if crashed(err) && !showsEmptyPage(t, bin) {
			t.Skipf("%s crashes even on an empty page (%v): the page is not checked in a browser on this machine\n%s", bin, err, stderr)
		}
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr)
	}
	return out
}

// launch runs the browser once, bounded by Timeout, and returns its
// standard output and standard error.
func launch(t testing.TB, bin, abs string, args []string) (stdout, stderr []byte, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+abs)...)
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	stdout, err = cmd.Output()
	if ctx.Err() != nil {
		err = fmt.Errorf("no answer in %v", Timeout)
	}
	return stdout, errBuf.Bytes(), err
}

// crashed reports whether err says the process died of a signal.
func crashed(err error) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

// showsEmptyPage reports whether the browser can load an empty page.
func showsEmptyPage(t testing.TB, bin string) bool {
	empty := filepath.Join(t.TempDir(), "empty.html")
	if err := os.WriteFile(empty, []byte("<!DOCTYPE html><title>empty</title>"), 0o666); err != nil {
		t.Fatal(err)
	}
	_, _, err := launch(t, bin, empty, []string{"--dump-dom"})
	return err == nil
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
