#!/usr/bin/env bash
# Reliability: runs precog on the faults, bad inputs and interruptions of
# issue 16 and prints one markdown table row per case: what precog did
# (exit status and its last line on stderr) and what it left behind
# (files in the private TMPDIR each case runs with, processes still
# running from it). Run from the repository root:
#
#	bash bench/reliability/run.sh > /tmp/reliability.md
#
# It builds precog into a temporary directory and uses testdata/kernels
# and small modules it writes; a case that needs a tmpfs mount (the full
# disk) says so if it cannot mount one. It takes 10 to 20 minutes on two
# cores.
set -u
ROOT=$(pwd)
W=$(mktemp -d /tmp/precog-reliability-XXXXXX)
trap 'umount "$W/small" 2>/dev/null; rm -rf "$W"' EXIT
P=$W/precog
go build -o "$P" ./cmd/precog || exit 1
K=$ROOT/testdata/kernels
C=$W/cache
n=0

# last prints the last non-empty line of $1, shortened, for a table cell.
last() { printf '%s\n' "$1" | grep -v '^[[:space:]]*$' | tail -1 | cut -c1-150 | sed 's/|/\\|/g; s/`//g'; }

# left says what a case left in its TMPDIR $1 and which processes run from it.
left() {
	local files procs
	files=$(find "$1" -mindepth 1 -maxdepth 1 | wc -l)
	procs=$(pgrep -f "$1" | wc -l)
	echo "$files files, $procs processes"
}

# row DESC DIR CMD...: runs CMD in DIR with a private TMPDIR.
row() {
	local desc=$1 dir=$2; shift 2
	n=$((n + 1))
	local T=$W/t$n
	mkdir -p "$T"
	local err rc
	err=$(cd "$dir" && TMPDIR=$T timeout 600 "$@" 2>&1 >/dev/null)
	rc=$?
	echo "| $n | $desc | $rc | \`$(last "$err")\` | $(left "$T") |"
}

# running PATTERN: whether a process whose command line matches PATTERN
# runs; "plan:PATTERN" also wants PRECOG_PLAN in its environment (a forced
# run), "sleep:N" is true after N seconds.
running() {
	case $1 in
	sleep:*) sleep "${1#sleep:}" ;;
	plan:*)
		local pid
		for pid in $(pgrep -f "${1#plan:}"); do
			grep -q PRECOG_PLAN "/proc/$pid/environ" 2>/dev/null && return 0
		done
		return 1
		;;
	*) pgrep -f "$1" >/dev/null ;;
	esac
}

# signal DESC DIR WAITFOR SIG CMD...: starts CMD, waits until running
# WAITFOR (@T@ in it is the case's TMPDIR) or 60 s, sends SIG to precog.
signal() {
	n=$((n + 1))
	local T=$W/t$n
	local desc=$1 dir=$2 waitfor=${3//@T@/$T} sig=$4
	shift 4
	mkdir -p "$T"
	(cd "$dir" && TMPDIR=$T exec "$@" 2>"$T.err" >/dev/null) &
	local pid=$!
	for _ in $(seq 600); do
		running "$waitfor" && break
		sleep 0.1
	done
	local start=$SECONDS
	kill -s "$sig" "$pid"
	wait "$pid"
	local rc=$?
	sleep 3 # the grace period of a group that ignores SIGTERM
	echo "| $n | $desc | $rc | \`$(last "$(cat "$T.err")")\` (exited $((SECONDS - start)) s after the signal) | $(left "$T") |"
}

module() { # module DIR GOVERSION FILE CONTENT ...: writes a small module
	local d=$1 v=$2; shift 2
	mkdir -p "$d"
	printf 'module example.com/m\n\ngo %s\n' "$v" >"$d/go.mod"
	while [ $# -gt 0 ]; do
		mkdir -p "$(dirname "$d/$1")"
		printf '%s' "$2" >"$d/$1"
		shift 2
	done
}

echo "| # | fault or input | exit | what precog said (last line on stderr) | left behind |"
echo "|---|---|---|---|---|"

# Missing and broken packages.
module "$W/broken" 1.22 b.go $'package b\n\nfunc F() int { return "x" }\n' b_test.go $'package b\n\nimport "testing"\n\nfunc TestF(t *testing.T) { F() }\n'
module "$W/syntax" 1.22 s.go $'package s\n\nfunc F( {\n'
module "$W/old" 1.16 o.go $'package o\n\nimport "sync"\n\nvar mu sync.Mutex\nvar n int\n\n// Inc counts.\nfunc Inc() { mu.Lock(); n++; mu.Unlock() }\n' o_test.go $'package o\n\nimport "testing"\n\nfunc TestInc(t *testing.T) {\n\tdone := make(chan bool)\n\tgo func() { Inc(); done <- true }()\n\tInc()\n\t<-done\n}\n'
module "$W/notests" 1.22 x.go $'package x\n\n// X is one.\nconst X = 1\n'
mkdir -p "$W/nomod"
row "package that does not exist" "$K" "$P" test -cache "$C" ./nosuchdir
row "no go.mod" "$W/nomod" "$P" test -cache "$C" ./...
row "package that does not compile (test)" "$W/broken" "$P" test -cache "$C" ./...
row "package that does not compile (vet)" "$W/broken" "$P" vet ./...
row "syntax error (test)" "$W/syntax" "$P" test -cache "$C" ./...
row "syntax error (record)" "$W/syntax" "$P" record -o "$W/o$n" -cache "$C" ./...
row "go.mod of go 1.16" "$W/old" "$P" test -cache "$C" ./...
row "package without tests" "$W/notests" "$P" test -cache "$C" ./...
row "-C of a directory that does not exist" "$K" "$P" test -C nosuchdir ./...
row "record without -o" "$K" "$P" record ./mysql

# Flags out of range.
for f in "-runs 0" "-runs 1001" "-runs x" "-timeout -1s" "-timeout 0" "-p 0" "-validate-budget 0" "-max-goroutines -1" "-max-trace -1" "-max-trace-time -1s" "-detect-budget -1s" "-record-budget -1s" "-count 3" "-race" "-cover" "-nosuchflag"; do
	# shellcheck disable=SC2086
	row "test $f" "$K" "$P" test -cache "$C" $f ./mysql
done
row "record -timeout -1s" "$K" "$P" record -o "$W/r$n" -timeout -1s ./mysql
row "repro of an unknown id" "$K" "$P" repro -cache "$C" 000000000000
row "trace with no action" "$K" "$P" trace
row "trace dump of two files" "$K" "$P" trace dump a b
row "hwreplay of a directory without index.json" "$K" "$P" hwreplay "$W/nomod"

# Damaged traces: a real one, cut and changed.
"$P" record -cache "$C" -o "$W/rec" -C "$K" ./mysql >/dev/null 2>&1
tr=$W/rec/precog.example/kernels/mysql/TestProcInfo.trace
size=$(stat -c %s "$tr")
for cut in 100 4096 8192 12288; do
	head -c $cut "$tr" >"$W/cut$cut.trace"
	row "trace dump of a trace cut at $cut of $size bytes" "$W" "$P" trace dump "$W/cut$cut.trace"
done
cut=0 caught=0
end=$(python3 -c "import sys; d=open(sys.argv[1],'rb').read(); print(len(d.rstrip(b'\0')))" "$tr")
while [ $cut -lt "$end" ]; do
	head -c $cut "$tr" >"$W/c.trace"
	"$P" trace dump "$W/c.trace" >/dev/null 2>&1 || caught=$((caught + 1))
	cut=$((cut + 1))
done
n=$((n + 1))
echo "| $n | trace dump of the same trace cut at every offset before its last event (0 to $((end - 1))) | | $caught of $end cuts exit 1 with what was lost | none |"
cp "$tr" "$W/flip.trace"
printf 'X' | dd of="$W/flip.trace" bs=1 seek=20 conv=notrunc 2>/dev/null
row "trace dump of a trace with a changed header byte" "$W" "$P" trace dump "$W/flip.trace"
printf 'precog trace\n\003' >"$W/v3.trace"
row "trace dump of a version 3 trace" "$W" "$P" trace dump "$W/v3.trace"
printf 'shopping list\n' >"$W/notes.txt"
row "trace dump of a text file" "$W" "$P" trace dump "$W/notes.txt"
: >"$W/empty.trace"
row "trace dump of an empty file" "$W" "$P" trace dump "$W/empty.trace"
row "hwreplay of a cut trace" "$W" "$P" hwreplay -sites "$W/rec/sites.json" "$W/cut8192.trace"

# Output directories.
mkdir -p "$W/mine" && echo '{"mine": true}' >"$W/mine/index.json"
row "test -o into a directory with the user's index.json" "$K" "$P" test -cache "$W/cache-untouched" -o "$W/mine" ./mysql
row "record -o into the same directory" "$K" "$P" record -cache "$W/cache-untouched" -o "$W/mine" ./mysql
row "cover -o into the same directory" "$K" "$P" cover -cache "$W/cache-untouched" -o "$W/mine" ./mysql
n=$((n + 1))
echo "| $n | ... the user's index.json afterwards | | \`$(cat "$W/mine/index.json")\`; cache made: $([ -e "$W/cache-untouched" ] && echo yes || echo no) | |"
row "test -o of a file" "$K" "$P" test -cache "$C" -o "$W/notes.txt" ./mysql
mkdir -p "$W/later" && echo "precog output directory, layout 9" >"$W/later/precog-output"
row "test -o of a later precog's output" "$K" "$P" test -cache "$C" -o "$W/later" ./mysql
row "record -o into its own earlier output" "$K" "$P" record -cache "$C" -o "$W/rec" ./mysql

# Hanging, exiting, panicking and failing tests.
row "a test that hangs (crashhang, -timeout 3s)" "$K" "$P" test -cache "$C" -timeout 3s ./crashhang
row "a test that panics (crashpanic)" "$K" "$P" test -cache "$C" ./crashpanic
row "a test that fails (crashfail)" "$K" "$P" test -cache "$C" ./crashfail
row "concurrent map writes, fatal (crashmap)" "$K" "$P" test -cache "$C" ./crashmap
module "$W/exit" 1.22 e.go $'package e\n\nimport "sync"\n\nvar mu sync.Mutex\n\n// Lock locks.\nfunc Lock() { mu.Lock(); mu.Unlock() }\n' e_test.go $'package e\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc TestExit(t *testing.T) { Lock(); os.Exit(0) }\n'
row "a test that calls os.Exit(0)" "$W/exit" "$P" test -cache "$C" ./...

# Signals.
signal "SIGINT while a test hangs (crashhang)" "$K" "@T@/precog-bin.*crashhang.test -test" INT "$P" test -cache "$C" -o "$W/sigint" ./crashhang
signal "SIGTERM while a test hangs (crashhang)" "$K" "@T@/precog-bin.*crashhang.test -test" TERM "$P" test -cache "$C" -o "$W/sigterm" ./crashhang
signal "SIGINT while instrumenting (fresh cache)" "$K" sleep:1 INT "$P" test -cache "$W/cache-sig" ./mysql
signal "SIGTERM while building (go test -c)" "$K" "go test -c -o @T@" TERM "$P" test -cache "$C" ./mysql
id=$(cd "$K" && "$P" test -cache "$C" ./mysql 2>/dev/null | grep 'reproduce: precog repro' | head -1 | awk '{print $NF}')
signal "SIGINT during replays (precog repro -count 100000)" "$K" "plan:@T@.*repro.test" INT "$P" repro -cache "$C" -count 100000 "$id"

# SIGKILL at random points, then the same run again.
ref=$(cd "$K" && "$P" test -cache "$C" ./mysql 2>/dev/null | grep -c '^\S.*: con-')
for delay in 0.5 2 4 7 11; do
	rm -rf "$W/cache-kill"
	(cd "$K" && TMPDIR=$W/tk exec "$P" test -cache "$W/cache-kill" ./mysql >/dev/null 2>&1) &
	mkdir -p "$W/tk"
	sleep $delay
	kill -KILL $! 2>/dev/null
	wait $! 2>/dev/null
	sleep 1
	orphans=$(pgrep -f "$W/tk" | wc -l)
	got=$(cd "$K" && "$P" test -cache "$W/cache-kill" ./mysql 2>/dev/null | grep -c '^\S.*: con-')
	n=$((n + 1))
	echo "| $n | SIGKILL after ${delay}s (fresh cache), then run again | | $got findings again, $ref in an undisturbed run | $orphans processes |"
	rm -rf "$W/tk"
done

# Two processes at once on one module and one cache.
rm -rf "$W/cache-two"
(cd "$K" && "$P" test -cache "$W/cache-two" ./mysql >"$W/two1" 2>&1; echo $? >>"$W/two1") &
(cd "$K" && "$P" test -cache "$W/cache-two" ./mysql >"$W/two2" 2>&1; echo $? >>"$W/two2") &
wait
n=$((n + 1))
echo "| $n | two precog test at once, one fresh cache | $(tail -1 "$W/two1"), $(tail -1 "$W/two2") | $(grep -c ': con-' "$W/two1") and $(grep -c ': con-' "$W/two2") findings, $ref in an undisturbed run | |"

# A full disk while traces are written.
mkdir -p "$W/small"
if mount -t tmpfs -o size=96k tmpfs "$W/small" 2>/dev/null; then
	row "record -o on a 96 KiB file system (full disk)" "$K" "$P" record -cache "$C" -o "$W/small/out" ./mysql
	umount "$W/small"
else
	n=$((n + 1))
	echo "| $n | full disk | | not run: no tmpfs mount here | |"
fi
