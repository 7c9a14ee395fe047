#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Soak test (make soak): record the heaviest lossless load this project
# knows, build/pingpong's two threads exchanging a byte on CPU 0 (about half
# a million scheduler events a second here), with `abicap record` for
# SOAK_SECONDS (default 600), sampling the recorder's RSS and open fds every
# SOAK_INTERVAL seconds. It passes when:
#
#   - the recorder exits 0 at the end of its duration;
#   - RSS is flat after warm-up: every sample from SOAK_WARMUP seconds on
#     (60, or a quarter of a shorter run) is <= the first of them + 2 MiB
#     (SOAK_RSS_SLACK_KB);
#   - fds are flat after warm-up: every sample equals the first of them;
#   - the file reads from end to end (build/capcheck, record by record) up
#     to its trailer, without a damaged chunk;
#   - records in the file == the trailer's count; per event, records in the
#     file == received, and seen == received + dropped (every drop counted);
#   - abicap report reads the whole file (when its records fit in half the
#     free memory: report holds every record, 80 bytes each, to sort them);
#   - none of the recorder's BPF programs, links or maps is left in the
#     kernel after it exits.
#
# Output in build/soak/: the capture, samples.tsv, record.log, summary.txt.
# Root. Run it alone (it loads BPF programs and wants CPU 0 for itself).
set -euo pipefail
cd "$(dirname "$0")/.."

SECS=${SOAK_SECONDS:-600}
INTERVAL=${SOAK_INTERVAL:-5}
SLACK_KB=${SOAK_RSS_SLACK_KB:-2048}
WARMUP=${SOAK_WARMUP:-60}
OUT=${SOAK_DIR:-build/soak}
ABICAP=build/abicap PINGPONG=build/pingpong CAPCHECK=build/capcheck
FILE=$OUT/soak.abicap
REC_BYTES=80 # sizeof(union abicap_rec): what report holds per record

die() { echo "soak: error: $*" >&2; exit 2; }
fails=()
fail() { fails+=("$*"); echo "soak: FAIL: $*" >&2; }

[[ $EUID == 0 ]] || { echo "soak: error: needs root (sudo make soak)" >&2; exit 3; }
[[ $SECS =~ ^[0-9]+$ && $SECS -ge 20 ]] || die "SOAK_SECONDS must be a whole number >= 20, not '$SECS'"
for b in $ABICAP $PINGPONG $CAPCHECK; do
	[[ -x $b ]] || die "$b is missing: run make soak (it builds them)"
done
command -v jq >/dev/null && command -v bpftool >/dev/null ||
	die "needs jq and bpftool (scripts/setup.sh installs them)"
(( WARMUP * 4 > SECS )) && WARMUP=$(( SECS / 4 ))

# abicap's programs (by name) but those with the ids in $1, as a JSON array
our_progs() {
	bpftool -j prog show | jq -c --argjson old "$1" '[.[] | select(.name // "" |
		test("^(tp_btf|raw_tp)_(sched|cpu)_")) | select(.id as $i | $old | index($i) | not)]'
}
ids_left() { # KIND IDS: how many of the ids exist now
	bpftool -j "$1" show | jq --argjson ids "$2" \
		'[.[] | select(.id as $i | $ids | index($i))] | length'
}

# another abicap's programs (the recorder's are the new ones)
others=$(our_progs '[]' | jq -c 'map(.id)')

mkdir -p "$OUT"
rm -f "$FILE" "$OUT"/samples.tsv "$OUT"/record.log "$OUT"/summary.txt
$ABICAP record -o "$FILE" --force -d "$SECS" 2> "$OUT/record.log" &
rec=$!
pp=
cleanup() {
	[[ -n $pp ]] && kill "$pp" 2>/dev/null
	kill "$rec" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 200); do
	grep -q "abicap: recording" "$OUT/record.log" && break
	kill -0 "$rec" 2>/dev/null || { cat "$OUT/record.log" >&2; die "abicap record did not start"; }
	sleep 0.1
done
grep -q "abicap: recording" "$OUT/record.log" || die "abicap record did not start in 20 s"
t0=$(date +%s.%N)

progs=$(our_progs "$others")
prog_ids=$(jq -c 'map(.id)' <<< "$progs")
map_ids=$(jq -c 'map(.map_ids // []) | add | unique' <<< "$progs")
link_ids=$(bpftool -j link show | jq -c --argjson p "$prog_ids" \
	'[.[] | select(.prog_id as $i | $p | index($i)) | .id]')

$PINGPONG $(( SECS + 60 )) 0 > "$OUT/pingpong.json" &
pp=$!

echo "soak: recording for $SECS s (samples every $INTERVAL s, warm-up $WARMUP s) into $FILE" >&2
printf 't_s\trss_kb\tfds\tfile_bytes\n' > "$OUT/samples.tsv"
while kill -0 "$rec" 2>/dev/null; do
	t=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }')
	rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$rec/status 2>/dev/null) || break
	fds=$(ls /proc/$rec/fd 2>/dev/null | wc -l)
	[[ -n $rss && $fds -gt 0 ]] || break
	printf '%s\t%s\t%s\t%s\n' "$t" "$rss" "$fds" "$(stat -c %s "$FILE")" >> "$OUT/samples.tsv"
	sleep "$INTERVAL"
done
set +e
wait "$rec"
rc=$?
set -e
kill "$pp" 2>/dev/null || true
wait "$pp" 2>/dev/null || true
pp=
[[ $rc == 0 ]] || fail "abicap record exited $rc: $(grep error "$OUT/record.log")"

# nothing left in the kernel (freed after RCU: 5 s at most)
for _ in $(seq 50); do
	left="$(ids_left prog "$prog_ids") $(ids_left link "$link_ids") $(ids_left map "$map_ids")"
	[[ $left == "0 0 0" ]] && break
	sleep 0.1
done
read -r lp ll lm <<< "$left"
[[ $left == "0 0 0" ]] ||
	fail "left in the kernel: $lp of $(jq length <<< "$prog_ids") programs, $ll of $(jq length <<< "$link_ids") links, $lm of $(jq length <<< "$map_ids") maps"
[[ $(jq length <<< "$prog_ids") -gt 0 && $(jq length <<< "$link_ids") -gt 0 ]] ||
	fail "found no abicap programs or links while recording"

# RSS and fds after warm-up
read -r nsamp rss0 rss_w rss_max fds_w fds_min fds_max < <(awk -v w="$WARMUP" '
	NR == 1 { next }
	NR == 2 { rss0 = $2 }
	$1 >= w { if (!n++) { rw = $2; fw = $3; fmin = $3; fmax = $3; rmax = $2 }
		  if ($2 > rmax) rmax = $2; if ($3 < fmin) fmin = $3; if ($3 > fmax) fmax = $3 }
	END { print n + 0, rss0, rw, rmax, fw, fmin, fmax }' "$OUT/samples.tsv")
if (( nsamp < 2 )); then
	fail "only $nsamp samples after warm-up"
else
	(( rss_max <= rss_w + SLACK_KB )) ||
		fail "RSS grew after warm-up: $rss_w kB at ${WARMUP} s, max $rss_max kB (rule: <= +$SLACK_KB kB)"
	(( fds_min == fds_w && fds_max == fds_w )) ||
		fail "fds changed after warm-up: $fds_w at ${WARMUP} s, then $fds_min..$fds_max"
fi

# the file: read through, counts against the trailer
set +e
$CAPCHECK "$FILE" > "$OUT/capcheck.json"
set -e
check=$(cat "$OUT/capcheck.json")
end=$(jq -r .end <<< "$check")
[[ $end == complete ]] || fail "the file did not read to its trailer: $end"
records=$(jq .records <<< "$check")
bytes=$(jq .bytes <<< "$check")
if [[ $(jq '.trailer != null' <<< "$check") == true ]]; then
	t_records=$(jq .trailer.records <<< "$check")
	[[ $records == "$t_records" ]] ||
		fail "$records records in the file, the trailer counts $t_records"
	bad=$(jq -r '.by_event as $f | .trailer.events | to_entries[] |
		select(.value.seen != .value.received + .value.dropped or
		       .value.received != $f[.key]) |
		"\(.key): seen \(.value.seen), received \(.value.received), dropped \(.value.dropped), in the file \($f[.key])"' <<< "$check")
	[[ -z $bad ]] || fail "counts do not add up: $bad"
	seen=$(jq '[.trailer.events[].seen] | add' <<< "$check")
	dropped=$(jq '[.trailer.events[].dropped] | add' <<< "$check")
	dur=$(jq .trailer.duration_s <<< "$check" | awk '{ printf "%.1f", $1 }')
else
	seen=? dropped=? dur=$SECS
fi

# report holds every record in memory: run it where they fit in half the free memory
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
need_kb=$(( records * REC_BYTES * 3 / 2 / 1024 )) # realloc doubling: up to 1.5x
if (( need_kb * 2 < avail_kb )); then
	$ABICAP report --format json "$FILE" > "$OUT/report.json" 2> "$OUT/report.log" &
	rp=$! hwm=0
	while kill -0 $rp 2>/dev/null; do # its peak RSS, last seen
		h=$(awk '/^VmHWM:/ { print $2 }' /proc/$rp/status 2>/dev/null) && hwm=${h:-$hwm}
		sleep 0.2
	done
	set +e
	wait $rp
	rrc=$?
	set -e
	rep=$(cat "$OUT/report.json")
	if [[ $rrc != 0 ]]; then
		fail "abicap report exited $rrc: $(head -c 300 "$OUT/report.log")"
	else
		r_records=$(jq .records <<< "$rep")
		[[ $r_records == "$records" && $(jq .cut_short <<< "$rep") == false ]] ||
			fail "report read $r_records records of $records"
		report_line="read all $r_records records (report's peak RSS $hwm kB)"
	fi
else
	report_line="not run: $records records need about $(( need_kb / 1024 )) MiB in report, $(( avail_kb / 1024 )) MiB free"
fi

rate=$(awk -v n="$records" -v d="$dur" 'BEGIN { printf "%.0f", n / d }')
bpe=$(awk -v b="$bytes" -v n="$records" 'BEGIN { printf "%.2f", n ? b / n : 0 }')
{
	echo "soak: $dur s of abicap record, build/pingpong on CPU 0, default ring buffer"
	echo "  events     $records recorded, $seen seen, $dropped dropped; $rate events/s"
	echo "  file       $bytes bytes, $bpe bytes/event, read through to its trailer: $end"
	echo "  RSS        $rss0 kB at start, $rss_w kB at ${WARMUP} s, max after $rss_max kB (rule: <= +$SLACK_KB kB)"
	echo "  fds        $fds_w at ${WARMUP} s, $fds_min..$fds_max after (rule: unchanged)"
	echo "  kernel     after exit: $lp programs, $ll links, $lm maps of abicap left"
	echo "  report     $report_line"
	echo "  samples    $nsamp after warm-up, every $INTERVAL s ($OUT/samples.tsv)"
	if (( ${#fails[@]} )); then
		echo "  result     FAIL (${#fails[@]}): ${fails[*]}"
	else
		echo "  result     PASS"
	fi
} | tee "$OUT/summary.txt"
(( ${#fails[@]} == 0 ))
