#!/usr/bin/env bash
# The tests' skip rule (tests/harness.h, docs/testing.md), as a user sees
# it: a skipped test is counted and shown with its reason after the
# summary, and under CI (CI set) it is a failure. One test
# (tests/unit_harness.c) skips on demand; build/test_unit runs it alone.
source "$(dirname "$0")/lib.sh"
echo "test harness: skips"
T=$TOP/build/test_unit
[ -x "$T" ] || { fail "$T is not built (make build/test_unit)"; done_; }
w=$(mktemp -d /tmp/abicap-harness.XXXXXX)
trap 'rm -rf "$w"' EXIT
one=("$T" --jobs 1 --filter 'harness/skips_when_asked')

# no CI, no log named: the runner counts and shows the skip itself
out=$(env -u CI -u ABICAP_SKIP_LOG ABICAP_SKIP_DEMO="the demo's reason" "${one[@]}" 2>&1); rc=$?
[ $rc -eq 0 ] && ok "a skip outside CI exits 0" || fail "a skip outside CI exited $rc: $out"
grep -qx '\[====\] 1 skipped:' <<<"$out" &&
	grep -qxF '[SKIP]   harness::skips_when_asked: the demo'"'"'s reason' <<<"$out" &&
	ok "the runner shows '1 skipped' and the test with its reason" ||
	fail "the runner's summary lacks the skip: $out"

# the Makefile's way: the log it names, printed by tests/install/skips.sh
out=$(env -u CI ABICAP_SKIP_LOG="$w/log" ABICAP_SKIP_DEMO="the demo's reason" "${one[@]}" 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(cat "$w/log" 2>/dev/null)" = "harness::skips_when_asked: the demo's reason" ] &&
	ok "the skip is in \$ABICAP_SKIP_LOG with its reason" ||
	fail "exit $rc, skip log: $(cat "$w/log" 2>&1)"
out=$(env -u CI tests/install/skips.sh "$w/log" unit-test 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(head -1 <<<"$out")" = "unit-test: 1 skipped:" ] &&
	grep -qxF "  SKIP harness::skips_when_asked: the demo's reason" <<<"$out" &&
	ok "skips.sh shows 'unit-test: 1 skipped:' and the reason, exit 0" ||
	fail "skips.sh exited $rc: $out"
out=$(CI=true tests/install/skips.sh "$w/log" unit-test 2>&1) &&
	fail "skips.sh under CI passed a skip: $out" ||
	ok "skips.sh under CI fails on a skip (a cr_skip_test too)"

# a part left unchecked: counted the same way, the test passes
rm -f "$w/log"
out=$(env -u CI ABICAP_SKIP_LOG="$w/log" ABICAP_SKIP_PART_DEMO="no pid to reuse" "${one[@]}" 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(cat "$w/log" 2>/dev/null)" = "harness::skips_when_asked: (part not checked) no pid to reuse" ] &&
	ok "a part not checked is in the skip log, the test passes" ||
	fail "exit $rc, skip log: $(cat "$w/log" 2>&1); $out"

# under CI both are failures, named, and nothing is logged as a skip
for v in ABICAP_SKIP_DEMO ABICAP_SKIP_PART_DEMO; do
	rm -f "$w/log"
	out=$(env CI=true ABICAP_SKIP_LOG="$w/log" $v="the demo's reason" "${one[@]}" 2>&1); rc=$?
	[ $rc -ne 0 ] && grep -q "CI is set.*the demo's reason" <<<"$out" && [ ! -s "$w/log" ] &&
		ok "under CI $v fails the test with the reason" ||
		fail "under CI $v: exit $rc, log '$(cat "$w/log" 2>/dev/null)': $out"
done

# nothing asked: it runs, nothing is skipped
out=$(env -u CI ABICAP_SKIP_LOG="$w/none" "${one[@]}" 2>&1); rc=$?
[ $rc -eq 0 ] && [ ! -s "$w/none" ] && ok "without a reason to skip, the test runs" ||
	fail "exit $rc: $out"
done_
