#!/bin/sh
# Runs precog test on the select reproducer N times (default 3) and counts
# the runs that report a race or con-uninit on m.ctx, which are all false
# (bench/RESULTS.md, "Channel order for selects"). PRECOG names the binary.
# Usage, from this directory: PRECOG=/tmp/precog ./run.sh 3
n=${1:-3}
hits=0
for i in $(seq "$n"); do
	if "${PRECOG:-precog}" test -validate=false -cfp=false ./... 2>&1 | grep -q '^sel.go:.*\(race\|con-uninit\)'; then
		hits=$((hits + 1))
	fi
done
echo "$hits of $n runs reported a false race on m.ctx"
