package tracecmd_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
	"github.com/precog-dev/precog/cmd/precog/internal/tracecmd"
	"github.com/precog-dev/precog/pipeline/record"
	"github.com/precog-dev/precog/shim/trace"
)

const header = `precog trace v1 test="TestTransfer" package="example.com/bank" start=2025-01-02T15:04:05.000000006Z pid=4242`

// writeTrace writes a trace of two goroutines, each in two batches, and
// returns the file's path and contents.
func writeTrace(t *testing.T, dir string) []byte {
	t.Helper()
	h := trace.Header{Test: "TestTransfer", Package: "example.com/bank", Start: time.Unix(1735830245, 6), PID: 4242}
	file := trace.AppendHeader(nil, h)
	encoders := make(map[uint64]*trace.Encoder) // one per goroutine, for all its batches
	batch := func(g uint64, events func(e *trace.Encoder, b []byte) []byte) {
		e := encoders[g]
		if e == nil {
			e = new(trace.Encoder)
			encoders[g] = e
		}
		start := len(file)
		file = events(e, e.StartBatch(file, g))
		trace.FinishBatch(file[start:])
	}
	batch(0, func(e *trace.Encoder, b []byte) []byte {
		b = e.AppendTestStart(b, 1, "TestTransfer")
		b = e.AppendFork(b, 2, 1, 5)
		return e.AppendLock(b, 4, 2, 0xc000012340)
	})
	batch(5, func(e *trace.Encoder, b []byte) []byte {
		b = e.AppendBegin(b, 3, 0)
		return e.AppendRead(b, 3, 0xc000012348)
	})
	batch(0, func(e *trace.Encoder, b []byte) []byte {
		b = e.AppendWrite(b, 4, 0xc000012348, 7)
		return e.AppendUnlock(b, 5, 5, 0xc000012340)
	})
	batch(5, func(e *trace.Encoder, b []byte) []byte {
		return e.AppendEnd(b, 6)
	})
	if err := os.WriteFile(filepath.Join(dir, "t.trace"), file, 0o666); err != nil {
		t.Fatal(err)
	}
	return file
}

const sites = `{"sites": [
	{"id": 2, "file": "bank.go", "line": 31, "col": 5, "kind": "lock", "function": "Transfer", "expr": "b.mu.Lock()"},
	{"id": 4, "file": "bank.go", "line": 32, "col": 2, "kind": "write", "function": "Transfer", "expr": "b.balance"}
]}`

func run(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	env := &cli.Env{Stdout: &out, Stderr: &errs, Dir: dir}
	code = cli.Main(t.Context(), env, []*cli.Command{tracecmd.Command()}, args)
	return out.String(), errs.String(), code
}

func TestDump(t *testing.T) {
	dir := t.TempDir()
	writeTrace(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "sites.json"), []byte(sites), 0o666); err != nil {
		t.Fatal(err)
	}
	const (
		bySeq = header + `
1 g=0 TestStart name="TestTransfer"
2 g=0 Fork site=1 child=5
3 g=5 Begin parent=0
3.1 g=5 Read site=3 addr=0xc000012348
4 g=0 Lock site=2 addr=0xc000012340
4.1 g=0 Write site=4 addr=0xc000012348 value=7
5 g=0 Unlock site=5 addr=0xc000012340
6 g=5 End
`
		withSites = header + `
1 g=0 TestStart name="TestTransfer"
2 g=0 Fork site=1 child=5
3 g=5 Begin parent=0
3.1 g=5 Read site=3 addr=0xc000012348
4 g=0 Lock site=2(bank.go:31:5) addr=0xc000012340
4.1 g=0 Write site=4(bank.go:32:2) addr=0xc000012348 value=7
5 g=0 Unlock site=5 addr=0xc000012340
6 g=5 End
`
		byFile = header + `
1 g=0 TestStart name="TestTransfer"
2 g=0 Fork site=1 child=5
4 g=0 Lock site=2 addr=0xc000012340
3 g=5 Begin parent=0
3.1 g=5 Read site=3 addr=0xc000012348
4.1 g=0 Write site=4 addr=0xc000012348 value=7
5 g=0 Unlock site=5 addr=0xc000012340
6 g=5 End
`
	)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trace", "dump", "t.trace"}, bySeq},
		{[]string{"trace", "dump", "-sites", "sites.json", "t.trace"}, withSites},
		{[]string{"trace", "dump", "t.trace", "-sites", "sites.json"}, withSites},
		{[]string{"trace", "-sites", "sites.json", "dump", "t.trace"}, withSites},
		{[]string{"trace", "dump", "-fileorder", "t.trace"}, byFile},
		{[]string{"trace", "dump", "--", filepath.Join(dir, "t.trace")}, bySeq},
	} {
		stdout, stderr, code := run(t, dir, tc.args...)
		if stdout != tc.want || stderr != "" || code != 0 {
			t.Errorf("precog %s: status %d, stdout\n%s\nwant\n%s\nstderr: %s", strings.Join(tc.args, " "), code, stdout, tc.want, stderr)
		}
	}
	// In an output directory of precog record, the dump finds its site
	// table; -sites= leaves it out.
	out := filepath.Join(dir, "out")
	pkg := filepath.Join(out, "example.com", "bank")
	if err := os.MkdirAll(pkg, 0o777); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		filepath.Join(out, record.MarkerFile): "",
		filepath.Join(out, record.SitesFile):  sites,
		filepath.Join(pkg, "t.trace"):         string(writeTrace(t, t.TempDir())),
	} {
		if err := os.WriteFile(name, []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trace", "dump", "out/example.com/bank/t.trace"}, withSites},
		{[]string{"trace", "dump", "-sites=", "out/example.com/bank/t.trace"}, bySeq},
	} {
		stdout, stderr, code := run(t, dir, tc.args...)
		if stdout != tc.want || stderr != "" || code != 0 {
			t.Errorf("precog %s: status %d, stdout\n%s\nwant\n%s\nstderr: %s", strings.Join(tc.args, " "), code, stdout, tc.want, stderr)
		}
	}

	// The dump parses back into the trace.
	stdout, _, _ := run(t, dir, "trace", "dump", "t.trace")
	got, err := trace.ParseText(strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "t.trace"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want, err := trace.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Events) != len(want.Events) || !got.Header.Start.Equal(want.Header.Start) {
		t.Fatalf("dump parses back as %+v, want %+v", got, want)
	}
	for i := range got.Events {
		if got.Events[i] != want.Events[i] {
			t.Errorf("event %d: dump parses back as %+v, want %+v", i, got.Events[i], want.Events[i])
		}
	}
}

// TestDumpMapped dumps a trace laid out as the shim's memory-mapped output
// leaves it after a crash: batches in chunks with zero padding after them,
// an uncommitted event cut halfway, and a zero tail; then the same trace
// of a process that ended its tests, and cut in its padding.
func TestDumpMapped(t *testing.T) {
	dir := t.TempDir()
	h := trace.Header{Test: "TestTransfer", Package: "example.com/bank", Start: time.Unix(1735830245, 6), PID: 4242}
	file, block := trace.AppendLiveHeader(nil, h)
	chunk := func(g uint64, events func(e *trace.Encoder, b []byte) []byte, uncommitted []byte) {
		file = append(file, make([]byte, 4096-len(file)%4096)...)
		var e trace.Encoder
		start := len(file)
		file = events(&e, e.StartBatch(file, g))
		trace.FinishBatch(file[start:])
		file = append(file, uncommitted...)
	}
	chunk(0, func(e *trace.Encoder, b []byte) []byte {
		b = e.AppendBegin(b, 1, trace.NoParent)
		b = e.AppendFork(b, 2, 1, 5)
		return e.AppendLock(b, 4, 2, 0xc000012340)
	}, []byte{4, 3, 7, 0x80}) // a Lock cut in its address
	chunk(5, func(e *trace.Encoder, b []byte) []byte {
		b = e.AppendBegin(b, 3, 0)
		return e.AppendRead(b, 3, 0xc000012348)
	}, nil)
	file = append(file, make([]byte, 8192)...)
	binary.LittleEndian.PutUint64(file[block+trace.ExtentField:], uint64(len(file)))
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("died.trace", file)
	ended := bytes.Clone(file)
	ended[block+trace.StateField] = byte(trace.Ended)
	write("ended.trace", ended)
	write("cut.trace", ended[:4096+100]) // in the padding after the first batch
	all := header + `
1 g=0 Begin parent=none
2 g=0 Fork site=1 child=5
3 g=5 Begin parent=0
3.1 g=5 Read site=3 addr=0xc000012348
4 g=0 Lock site=2 addr=0xc000012340
`
	for _, tc := range []struct {
		file, stdout, stderr string
		code                 int
	}{
		{"died.trace", all, "precog: died.trace: the process died before its tests returned (a crash, a kill or a timeout); its events up to then are printed\n", 0},
		{"ended.trace", all, "", 0},
		{"cut.trace", header + `
1 g=0 Begin parent=none
2 g=0 Fork site=1 child=5
4 g=0 Lock site=2 addr=0xc000012340
`, "precog: cut.trace: broken trace: file cut, " + strconv.Itoa(len(file)-4196) + " of its " + strconv.Itoa(len(file)) +
			" bytes missing at offset 4196; the 3 events before it are printed, whatever came after it is lost\n", 1},
	} {
		stdout, stderr, code := run(t, dir, "trace", "dump", tc.file)
		if stdout != tc.stdout || stderr != tc.stderr || code != tc.code {
			t.Errorf("%s: status %d, stdout\n%s\nwant\n%s\nstderr %q\nwant   %q", tc.file, code, stdout, tc.stdout, stderr, tc.stderr)
		}
	}
}

func TestDumpErrors(t *testing.T) {
	dir := t.TempDir()
	file := writeTrace(t, dir)
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("cut.trace", file[:len(file)-3])
	write("notes.txt", []byte("shopping list\n"))
	write("newer.trace", []byte("precog trace\n"+string(rune(trace.Version+1))))
	write("bad.json", []byte(`{"sites": [{"id": 1}, {"id": 1}]}`))
	// The last batch is 'B', goroutine 5, its seq 3 and sub 1, 4 bytes of
	// length and the End event with its seq delta: the cut falls in its
	// length.
	lengthAt := len(file) - 10 + 4
	for _, tc := range []struct {
		args           []string
		stdout, stderr string
		code           int
	}{
		// A broken trace prints the events before the damage.
		{[]string{"dump", "cut.trace"}, header + `
1 g=0 TestStart name="TestTransfer"
2 g=0 Fork site=1 child=5
3 g=5 Begin parent=0
3.1 g=5 Read site=3 addr=0xc000012348
4 g=0 Lock site=2 addr=0xc000012340
4.1 g=0 Write site=4 addr=0xc000012348 value=7
5 g=0 Unlock site=5 addr=0xc000012340
`, "precog: cut.trace: broken trace: batch header cut short at offset " + strconv.Itoa(lengthAt) + "; the 7 events before it are printed, whatever came after it is lost\n", cli.ExitError},
		{[]string{"dump", "missing.trace"}, "", "precog: open " + filepath.Join(dir, "missing.trace") + ": no such file or directory\n", cli.ExitError},
		{[]string{"dump", "notes.txt"}, "", "precog: notes.txt: not a precog trace\n", cli.ExitError},
		{[]string{"dump", "newer.trace"}, "", fmt.Sprintf("precog: newer.trace: trace version %d is not supported (precog reads version %d): a newer precog recorded it\n", trace.Version+1, trace.Version), cli.ExitError},
		{[]string{"dump", "-sites", "bad.json", "t.trace"}, "", "precog: site table " + filepath.Join(dir, "bad.json") + ": two sites with id 1\n", cli.ExitError},
		{[]string{}, "", "precog: trace needs an action: dump (run 'precog help trace' for usage)\n", cli.ExitUsage},
		{[]string{"show", "t.trace"}, "", "precog: unknown trace action \"show\" (run 'precog help trace' for usage)\n", cli.ExitUsage},
		{[]string{"dump"}, "", "precog: dump takes one trace file, got 0 (run 'precog help trace' for usage)\n", cli.ExitUsage},
		{[]string{"dump", "a", "b"}, "", "precog: dump takes one trace file, got 2 (run 'precog help trace' for usage)\n", cli.ExitUsage},
		{[]string{"dump", "t.trace", "-color"}, "", "precog: flag provided but not defined: -color (run 'precog help trace' for usage)\n", cli.ExitUsage},
	} {
		stdout, stderr, code := run(t, dir, append([]string{"trace"}, tc.args...)...)
		if stdout != tc.stdout || stderr != tc.stderr || code != tc.code {
			t.Errorf("precog trace %s: status %d, stdout\n%s\nwant\n%s\nstderr %q\nwant   %q",
				strings.Join(tc.args, " "), code, stdout, tc.stdout, stderr, tc.stderr)
		}
	}
}

// TestHelp checks that "precog help trace" and "precog trace dump -h" say
// how to run dump and list its flags.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help", "trace"}, {"trace", "dump", "-h"}, {"trace", "-h"}} {
		stdout, stderr, code := run(t, "", args...)
		for _, want := range []string{
			"usage: precog trace [flags] dump file\n",
			"Trace dump prints the trace file",
			"  -sites file\n",
			"  -fileorder\n",
		} {
			if !strings.Contains(stdout, want) || stderr != "" || code != 0 {
				t.Errorf("precog %s: status %d, no %q in\n%s\nstderr %s", strings.Join(args, " "), code, want, stdout, stderr)
			}
		}
	}
}
