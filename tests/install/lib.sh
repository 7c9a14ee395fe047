# Shared by tests/install/*.sh: run from the top of the tree, as root.
# Each check prints "ok NAME" or "FAIL NAME: why"; a script exits 1 if any
# check failed. A tool a test needs that is missing is a failure, never a
# skip (scripts/setup.sh installs them all). A check this machine cannot
# make calls skip: counted and shown at the end with its reason, and a
# failure under CI (CI set), which must make every check (docs/testing.md).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
TOP=$PWD
BIN=${ABICAP:-$TOP/build/abicap}
fails=0
skips=()
ok() { echo "  ok   $*"; }
fail() { echo "  FAIL $*"; fails=$((fails + 1)); }
skip() {
	if [ -n "${CI:-}" ]; then
		fail "$* (CI is set: a skip is a failure)"
	else
		echo "  SKIP $*"
		skips+=("$*")
	fi
}
need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null ||
			{ echo "  FAIL $t is not installed (run scripts/setup.sh)"; exit 1; }
	done
}
done_() {
	echo "$(basename "$0"): ${#skips[@]} skipped${skips[0]+:}"
	[ ${#skips[@]} -eq 0 ] || printf '  SKIP %s\n' "${skips[@]}"
	[ "$fails" -eq 0 ] || { echo "$(basename "$0"): $fails failed"; exit 1; }
}
# the commands abicap --help lists
commands() {
	"$BIN" --help | awk '/^Commands:/ { on = 1; next }
		on && /^  [a-z]/ { print $1 } on && /^$/ { exit }'
}
# the options a --help text documents, one a line: -x and --long
documented() {
	sed -nE 's/^ +(-[A-Za-z0-9]), (--[a-z0-9-]+).*/\1\n\2/p
		 s/^ +(--[a-z0-9-]+).*/\1/p'
}
# scrape_until PORT OUT PATTERN PID: /metrics of 127.0.0.1:PORT into OUT
# until a line of it matches PATTERN; 1 if PID ends first or 60 s pass
scrape_until() {
	local _
	for _ in $(seq 600); do
		curl -sf "http://127.0.0.1:$1/metrics" -o "$2" && grep -q "$3" "$2" && return 0
		kill -0 "$4" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
