package apache

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// TestLogWriters logs one access line from each of two request goroutines
// into a 48-byte buffer that holds one line but not two. The second request
// starts 20 ms after the first, which has normally finished its
// write by then.
func TestLogWriters(t *testing.T) {
	var out bytes.Buffer
	log := newBufferedLog(&out, 48)
	var wg sync.WaitGroup
	for i, path := range []string{"/index.html", "/favicon.ico"} {
		if i > 0 {
			time.Sleep(20 * time.Millisecond) // the second request arrives
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			log.writeLog("127.0.0.1 GET ", path, " 200\n")
		}()
	}
	wg.Wait()
	if err := log.flush(); err != nil {
		t.Fatal(err)
	}
	// The lines are 30 and 31 bytes long: each fits the buffer, both do not.
	want := "127.0.0.1 GET /index.html 200\n127.0.0.1 GET /favicon.ico 200\n"
	if out.String() != want {
		t.Errorf("log = %q, want %q", out.String(), want)
	}
}
