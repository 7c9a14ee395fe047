#!/usr/bin/env bash
# `abicap diff --all` held against the independent reading
# (scripts/btfdiff_oracle.py: bpftool's dump, compared by its own code) over
# the kernel matrix: every consecutive pair of one architecture and flavour
# in kernels.sh's manifest (id line flavour package version release
# directory status arch), each kernel's raw BTF (vmlinux.btf, in the
# kernel's byte order). With --history FILE, also audits an ABI history
# (docs/abi-history.json): each step's event changes must be exactly the
# oracle's changes of the six events' tracepoints and records.
#
#   scripts/oracle-matrix.sh [--min-pairs N] [--history FILE] [--jobs N] [MANIFEST]
#
# Prints one line per pair and a summary; results in $OUT (build/oracle).
# Exit 0: every pair agrees (and at least N pairs, default 10, of at least
# two byte orders were compared); 1: a disagreement (each printed); 2: bad
# usage or missing kernels.
set -uo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
MIN=10
HISTORY=
JOBS=${JOBS:-2}
while [ $# -gt 0 ]; do
	case $1 in
	--min-pairs) MIN=${2:?--min-pairs needs a number}; shift ;;
	--history) HISTORY=${2:?--history needs a file}; shift ;;
	--jobs) JOBS=${2:?--jobs needs a number}; shift ;;
	-h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "oracle-matrix.sh: error: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
manifest=${1:-${ABICAP_KERNEL_CACHE:-$HOME/.cache/abicap/kernels}/manifest.tsv}
OUT=${ABICAP_ORACLE_OUT:-build/oracle}
ABICAP=${ABICAP:-build/abicap}
die() { echo "oracle-matrix.sh: error: $*" >&2; exit 2; }
[ -r "$manifest" ] || die "no manifest '$manifest': run scripts/kernels.sh first"
[ -x "$ABICAP" ] || die "no $ABICAP: run make first"
for t in bpftool python3 jq; do
	command -v $t >/dev/null || die "$t is missing: run scripts/setup.sh"
done
rm -rf "$OUT" && mkdir -p "$OUT"

# consecutive kernels of one arch/flavour, by version: "old new label"
awk -F'\t' '$8 == "ok" { print $9 "\t" $3 "\t" $5 "\t" $7 "/vmlinux.btf\t" $2 }' "$manifest" |
	sort -t$'\t' -k1,1 -k2,2 -k3,3V |
	awk -F'\t' '{ k = $1 "/" $2 } k == pk { print pb "\t" $4 "\t" k "\t" pl "\t" $5 }
		{ pk = k; pb = $4; pl = $5 }' > "$OUT/pairs.tsv"
n=$(wc -l < "$OUT/pairs.tsv")
[ "$n" -ge "$MIN" ] || die "$n pairs in $manifest, at least $MIN wanted: fetch more kernels (scripts/kernels.sh)"

# one pair: the oracle's verdict, and its own list of changes (for the history audit)
export ABICAP OUT
pair() {
	local old=$1 new=$2 label=$3 from=$4 to=$5 f
	f=$OUT/${label//\//_}-$from-$to
	python3 scripts/btfdiff_oracle.py --abicap "$ABICAP" --json "$f.json" \
		"$old" "$new" > "$f.txt" 2>&1
	echo "$? $label $from $to $f"
}
export -f pair
tr '\t' '\n' < "$OUT/pairs.tsv" | xargs -d '\n' -n 5 -P "$JOBS" bash -c 'pair "$@"' _ |
	sort -k2,2 -k3,3V > "$OUT/results.txt"

fail=0 orders=
while read -r rc label from to f; do
	case $rc in
	0) echo "oracle: $label $from -> $to: $(sed -n 's/.*: agree/agree/p' "$f.txt")" ;;
	*) echo "oracle: FAIL $label $from -> $to:"; sed 's/^/    /' "$f.txt" | head -40; fail=$((fail + 1)) ;;
	esac
done < "$OUT/results.txt"
# the byte orders compared: BTF magic 9f eb little-endian, eb 9f big-endian
while IFS=$'\t' read -r old _; do
	case $(head -c2 "$old" | od -An -tx1 | tr -d ' ') in
	9feb) orders+=" little" ;; eb9f) orders+=" big" ;;
	esac
done < "$OUT/pairs.tsv"
orders=$(tr ' ' '\n' <<<"$orders" | sort -u | paste -sd' ' | sed 's/^ //')

if [ -n "$HISTORY" ]; then
	# the scopes abicap diff compares by default: the six events and their records
	scopes='["sched_switch","sched_wakeup","sched_wakeup_new","sched_waking","cpu_idle","cpu_frequency",
		"trace_event_raw_sched_switch","trace_event_raw_sched_wakeup_template","trace_event_raw_cpu"]'
	while read -r rc label from to f; do
		[ -s "$f.json" ] || continue
		arch=${label%%/*} flavour=${label#*/}
		step=$(jq -c --arg a "$arch" --arg fl "$flavour" --arg f "$from" --arg t "$to" \
			'[.steps[] | select(.arch == $a and .flavour == $fl and .from_line == $f and .to_line == $t)][0]' "$HISTORY")
		[ "$step" != null ] || continue
		bad=$(jq -r -n --argjson s "$step" --slurpfile o "$f.json" --argjson sc "$scopes" '
			def k: "\(.scope) \(.item) \(.change) \(.old // .old_type) \(.new // .new_type) \(.breaking)";
			([$s.changes[] | select(.kind == "event") | k] | sort) as $h |
			([$o[0].changes[] | select(.scope as $x | $sc | index($x)) | k] | sort) as $m |
			($h - $m | map("only in the history: " + .)) + ($m - $h | map("only in the oracle: " + .)) | .[]')
		if [ -n "$bad" ]; then
			echo "oracle: FAIL history $label $from -> $to:"; sed 's/^/    /' <<<"$bad"
			fail=$((fail + 1))
		else
			audited=$((${audited:-0} + 1))
		fi
	done < "$OUT/results.txt"
	echo "oracle: history $HISTORY: ${audited:-0} steps audited"
fi
echo "oracle: $n pairs (byte orders: $orders), $fail failed"
[ "$fail" -eq 0 ] || exit 1
[ "$(wc -w <<<"$orders")" -ge 2 ] || [ "$MIN" -lt 10 ] ||
	die "only $orders-endian kernels compared: the matrix needs both byte orders (s390x)"
exit 0
