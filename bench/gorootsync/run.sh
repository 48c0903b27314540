#!/bin/sh
# Measures the one-time rebuild cost of overlaying a GOROOT sync file
# ($GOROOT/src/sync/mutex.go, with a hook in Lock and Unlock as an
# instrumented sync would need) when building a kernel's test binary.
# Usage: bench/gorootsync/run.sh [rounds]   (from the repository root)
# Prints one line per build: variant, cache state, wall seconds, user+sys
# CPU seconds, and the number of packages compiled.
set -eu
rounds=${1:-3}
root=$(pwd)
kernel=$root/testdata/runtime
goroot=$(go env GOROOT)
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT

# The overlaid mutex.go: Lock and Unlock call a hook that the shim could set
# through a linkname (sync cannot import the shim: the shim imports sync).
sed -e 's/^func (m \*Mutex) Lock() {$/func (m *Mutex) Lock() {\n\tif h := precogMutexHook; h != nil {\n\t\th(m, 1)\n\t}/' \
    -e 's/^func (m \*Mutex) Unlock() {$/func (m *Mutex) Unlock() {\n\tif h := precogMutexHook; h != nil {\n\t\th(m, 2)\n\t}/' \
    "$goroot/src/sync/mutex.go" > "$work/mutex.go"
cat >> "$work/mutex.go" <<'HOOK'

// precogMutexHook is set by the precog shim (pulled with go:linkname) to
// record Lock (op 1) and Unlock (op 2) of every Mutex, the standard
// library's included.
//
//go:linkname precogMutexHook
var precogMutexHook func(m *Mutex, op int)
HOOK
grep -q 'precogMutexHook; h != nil' "$work/mutex.go" || { echo "mutex.go did not take the hook" >&2; exit 1; }
grep -q '"unsafe"' "$work/mutex.go" || sed -i 's/^import (/import (\n\t_ "unsafe"/' "$work/mutex.go"
printf '{"Replace":{"%s":"%s"}}\n' "$goroot/src/sync/mutex.go" "$work/mutex.go" > "$work/overlay.json"

build() { # label state cache [flags...]
	label=$1 state=$2 cache=$3
	shift 3
	start=$(date +%s.%N)
	GOCACHE=$cache GOFLAGS=-mod=readonly /usr/bin/time -f '%U %S' -o "$work/time" \
		go test -c -x -o "$work/k.test" "$@" ./mysql 2> "$work/log" >/dev/null || { cat "$work/log" >&2; exit 1; }
	end=$(date +%s.%N)
	n=$(grep -c '/compile ' "$work/log" || true)
	cpu=$(awk '{print $1+$2}' "$work/time")
	printf '%-8s %-22s wall %6.2fs cpu %6.2fs compiled %3d\n' "$label" "$state" "$(echo "$end - $start" | bc)" "$cpu" "$n"
}

cd "$kernel"
echo "go $(go env GOVERSION), nproc $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
	c1=$work/cache-plain-$r c2=$work/cache-sync-$r
	mkdir -p "$c1" "$c2"
	build plain cold "$c1"
	build plain warm "$c1"
	build sync after-plain-warm "$c1" -overlay="$work/overlay.json"
	build sync warm "$c1" -overlay="$work/overlay.json"
	build sync cold "$c2" -overlay="$work/overlay.json"
	echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
done
