package hwmodel

import (
	"os"
	"testing"

	"github.com/precog-dev/precog/detect/hb"
	"github.com/precog-dev/precog/shim/trace"
)

// BenchmarkReplay replays the trace in $HWMODEL_TRACE (with the site table
// in $HWMODEL_SITES), or a generated one: goroutines taking turns at
// critical sections over many locations.
func BenchmarkReplay(b *testing.B) {
	var evs []trace.Event
	if path := os.Getenv("HWMODEL_TRACE"); path != "" {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		tr, err := trace.ReadAll(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		evs = tr.Events
	} else {
		evs = rounds(2000, 16, nil)
	}
	g := hb.Analyze(evs, hb.Options{})
	cfg := Default()
	b.ReportAllocs()
	for b.Loop() {
		Replay(g, cfg)
	}
	b.ReportMetric(float64(len(evs))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
