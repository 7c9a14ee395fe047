#!/usr/bin/env bash
# skips.sh LOG [WHAT]: the skips a test run wrote to LOG (one "test: why"
# a line; tests/harness.c, tests/install/lib.sh), counted and shown after
# the run's own summary: "N skipped" and each one. Under CI (CI set) any
# skip is a failure (exit 1): CI must run every test.
log=$1
what=${2:-$(basename "$log" .skips)}
n=0
[ -s "$log" ] && n=$(wc -l < "$log")
if [ "$n" -eq 0 ]; then
	echo "$what: 0 skipped"
	exit 0
fi
echo "$what: $n skipped:"
sed 's/^/  SKIP /' "$log"
if [ -n "${CI:-}" ]; then
	echo "$what: CI is set: a skip is a failure"
	exit 1
fi
