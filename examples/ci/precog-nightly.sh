#!/bin/sh
# precog-nightly.sh: the steps of precog's nightly job, for any CI system.
# The GitHub Actions workflow beside it (precog-nightly.yml) calls it; so
# can a GitLab, Buildkite, CircleCI or Jenkins job (see README.md).
#
#   precog-nightly.sh shard I N   run shard I of N of the tests into $PRECOG_RESULTS/precog-shard-I
#   precog-nightly.sh merge       merge $PRECOG_RESULTS/precog-shard-* into $PRECOG_RESULTS/merged;
#                                 its exit status is the job's verdict
#   precog-nightly.sh single      run every test unsharded into $PRECOG_RESULTS/merged
#
# A shard's step succeeds when precog ran (exit 0, or 3 for findings): the
# merge decides, with the baseline, whether the job fails. Exit 1 or 2
# (an error, bad input) fails the step at once.
#
# Environment (all optional):
#   PRECOG           the precog binary (default: precog on PATH)
#   PRECOG_PACKAGES  the packages to test (default: ./...)
#   PRECOG_FLAGS     more flags for precog test, such as "-timeout 5m -run Integration"
#   PRECOG_RESULTS   where results directories go (default: precog-results)
#   PRECOG_BASELINE  the baseline of accepted finding IDs (default: .precog-baseline, if it exists)
#   PRECOG_TIMES     a directory with the last merged tests.json, to balance the shards
#                    (default: .precog-times; merge updates it)
set -eu

precog=${PRECOG:-precog}
packages=${PRECOG_PACKAGES:-./...}
flags=${PRECOG_FLAGS:-}
results=${PRECOG_RESULTS:-precog-results}
baseline=${PRECOG_BASELINE:-.precog-baseline}
times=${PRECOG_TIMES:-.precog-times}

baseline_flag=
if [ -f "$baseline" ]; then
	baseline_flag="-baseline $baseline"
fi

case "${1:-}" in
shard)
	[ $# -eq 3 ] || { echo "usage: $0 shard I N" >&2; exit 2; }
	times_flag=
	if [ -f "$times/tests.json" ]; then
		times_flag="-shard-times $times"
	fi
	mkdir -p "$results"
	status=0
	# shellcheck disable=SC2086 # the flags and packages are lists
	"$precog" test -ci "$results/precog-shard-$2" -shard "$2/$3" $times_flag $baseline_flag $flags $packages || status=$?
	case $status in
	0 | 3) exit 0 ;;
	*) exit "$status" ;;
	esac
	;;
merge)
	# shellcheck disable=SC2086
	set -- "$results"/precog-shard-*
	status=0
	# shellcheck disable=SC2086
	"$precog" merge -o "$results/merged" $baseline_flag "$@" || status=$?
	if [ -f "$results/merged/tests.json" ]; then
		mkdir -p "$times"
		cp "$results/merged/tests.json" "$times/tests.json"
	fi
	exit "$status"
	;;
single)
	mkdir -p "$results"
	# shellcheck disable=SC2086
	exec "$precog" test -ci "$results/merged" $baseline_flag $flags $packages
	;;
*)
	echo "usage: $0 shard I N | merge | single" >&2
	exit 2
	;;
esac
