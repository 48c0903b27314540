#!/bin/sh
# Runs precog test on the server reproducer and prints its races: the one
# on s.Seen is true (the test writes it while a request is in flight); one
# on s.Greeting, written before the go statement that starts the server,
# is false (bench/RESULTS.md, "precog test's precision on held-out 9's
# shapes"). PRECOG names the binary.
# Usage, from this directory: PRECOG=/tmp/precog ./run.sh
"${PRECOG:-precog}" test ./... 2>&1 | grep '^serve.go:.*race'
