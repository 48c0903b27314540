package controls

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// showDuringStatement runs one statement of a session while another
// goroutine runs SHOW PROCESSLIST, as mysql.TestProcInfo does.
func showDuringStatement(dispatch func(string, func(string)), show func(*strings.Builder)) string {
	running := make(chan struct{})
	finished := make(chan struct{})
	shown := make(chan string)
	go func() {
		defer close(finished)
		dispatch("SELECT 1", func(string) {
			close(running)
			time.Sleep(time.Millisecond)
		})
	}()
	go func() {
		<-running
		var out strings.Builder
		show(&out)
		shown <- out.String()
	}()
	got := <-shown
	<-finished
	return got
}

func TestMutexProcInfo(t *testing.T) {
	thd := &MutexTHD{id: 1}
	got := showDuringStatement(thd.Dispatch, func(b *strings.Builder) { thd.ShowProcessList(b) })
	if !strings.HasPrefix(got, "1") {
		t.Errorf("SHOW PROCESSLIST = %q", got)
	}
}

func TestMutexMapWrites(t *testing.T) {
	r := &MutexResolver{
		lookup: func(h string) []string { return []string{h + "."} },
		cache:  make(map[string][]string),
	}
	var wg sync.WaitGroup
	for _, h := range []string{"a.example", "b.example", "a.example"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Resolve(h)
		}()
	}
	wg.Wait()
	if len(r.cache) != 2 {
		t.Errorf("cache = %v", r.cache)
	}
}

func TestMutexLogWriters(t *testing.T) {
	var out bytes.Buffer
	log := &MutexLog{w: &out, outbuf: make([]byte, 48)}
	var wg sync.WaitGroup
	for _, path := range []string{"/index.html", "/favicon.ico"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			log.WriteLog("127.0.0.1 GET ", path, " 200\n")
		}()
	}
	wg.Wait()
	log.Flush()
	if got := out.Len(); got != 61 {
		t.Errorf("log has %d bytes, want 61: %q", got, out.String())
	}
}

func TestWaitGroupQueueDelete(t *testing.T) {
	if n := CompressJoined([][]byte{[]byte("aaaa"), []byte("bb")}, 2); n != 6 {
		t.Errorf("compressed %d bytes, want 6", n)
	}
}

func TestWaitGroupEndTime(t *testing.T) {
	if d := FFTJoined(2); d < 0 {
		t.Errorf("End at %d", d)
	}
}

func TestWaitGroupAddBeforeGo(t *testing.T) {
	var s AddFirstShipper
	s.Ship("batch 1")
	if got := s.Close(); !reflect.DeepEqual(got, []string{"batch 1"}) {
		t.Errorf("sent %q", got)
	}
}

func TestChannelReady(t *testing.T) {
	if got := NewReadySession().Wait(); got != 1024 {
		t.Errorf("allowed %d bytes, want 1024", got)
	}
}

func TestChannelCloseAfterSenders(t *testing.T) {
	got := CompressClosedAfterSenders([]string{"a", "b", "c"}, 2)
	slices.Sort(got)
	if !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("got %q", got)
	}
}

func TestChannelKillRouter(t *testing.T) {
	if n := RunAndKill(&Router{tasks: []string{"FromDevice", "ToDevice"}}, 2*time.Millisecond); n < 2 {
		t.Errorf("fired %d tasks, want at least 2", n)
	}
}

// TestChannelLogWaits is tlogafter.TestWatch waiting for its logger.
func TestChannelLogWaits(t *testing.T) {
	events := make(chan string, 4)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range events {
			t.Logf("event %s", ev)
		}
	}()
	events <- "a.txt"
	close(events)
	<-done
}

func TestOnceBandwidth(t *testing.T) {
	h := NewOnceSession()
	if got := <-h.done; got != 0 {
		t.Errorf("bytes = %d", got)
	}
}

func TestAtomicProcInfo(t *testing.T) {
	var thd AtomicTHD
	got := showDuringStatement(thd.Dispatch, func(b *strings.Builder) { thd.ShowProcessList(b) })
	if !strings.HasPrefix(got, "1") {
		t.Errorf("SHOW PROCESSLIST = %q", got)
	}
}

func TestAtomicLogSlots(t *testing.T) {
	l := &AtomicLog{records: make([][]byte, 2)}
	var wg sync.WaitGroup
	for _, rec := range []string{"a", "b", "c"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Append([]byte(rec))
		}()
	}
	wg.Wait()
	for i, r := range l.records {
		if r == nil {
			t.Errorf("slot %d empty", i)
		}
	}
}

func TestPublishConfig(t *testing.T) {
	got := ServePublished([]string{"/", "/favicon.ico"})
	want := []string{"index@a:FromDevice", "icon@b:FromDevice"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLocalLogs(t *testing.T) {
	got := LogLocal([][]string{{"/index.html", "/favicon.ico"}, {"/a", "/b"}})
	want := []string{"GET /index.html\nGET /favicon.ico\n", "GET /a\nGET /b\n"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
