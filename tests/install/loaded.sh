#!/usr/bin/env bash
# loaded.sh N CMD...: CMD run beside N CPU hogs (busy loops at nice 0: a
# busy machine, docs/testing.md), which end with it however it ends: on
# exit, on a signal, and, were this script killed outright, by themselves
# once it is gone. The exit status is CMD's.
n=${1:?usage: loaded.sh N CMD...}
shift
me=$$
hogs=()
trap 'kill "${hogs[@]}" 2>/dev/null; wait "${hogs[@]}" 2>/dev/null' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
for ((i = 0; i < n; i++)); do
	(
		while [ -e "/proc/$me" ]; do
			for ((k = 0; k < 200000; k++)); do :; done
		done
	) &
	hogs+=($!)
done
echo "loaded.sh: $n CPU hogs running beside $1 (pids ${hogs[*]})"
"$@"
