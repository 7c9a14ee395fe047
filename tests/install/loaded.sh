#!/usr/bin/env bash
# loaded.sh N CMD...: CMD run on a busy machine (docs/testing.md, issue 36):
# N CPU hogs and a messaging storm, one stress-ng (--cpu N: busy loops at
# nice 0; --sock 1 --msg 1: a socket and a message-queue sender/receiver
# pair waking each other: with N 4, 8-9 tasks runnable on average on this
# 2-CPU VM, the "load 8 and more"; --sock 4 --msg 4 made 19 here
# and a load of 33 on CI's slower machine), which ends with CMD however it
# ends: on exit, on a signal, and, were this script killed outright, by
# itself once it is gone. The load average is printed before and after.
# The exit status is CMD's. N 0: the storm alone.
n=${1:?usage: loaded.sh N CMD...}
shift
me=$$
command -v stress-ng >/dev/null || {
	echo "loaded.sh: error: stress-ng is not installed (run scripts/setup.sh)" >&2
	exit 2
}
cpu=()
((n > 0)) && cpu=(--cpu "$n")
(
	stress-ng "${cpu[@]}" --sock 1 --msg 1 --quiet 2>/dev/null &
	s=$!
	trap 'kill $s 2>/dev/null; wait $s; exit 0' TERM
	while [ -e "/proc/$me" ] && kill -0 $s 2>/dev/null; do sleep 1; done
	kill $s 2>/dev/null
	wait $s
) &
load=$!
trap 'kill $load 2>/dev/null; wait $load 2>/dev/null' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
echo "loaded.sh: $n CPU hogs and a messaging storm beside $1 (load average" \
	"now $(cut -d' ' -f1-3 /proc/loadavg))"
"$@"
rc=$?
echo "loaded.sh: load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
