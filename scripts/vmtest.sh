#!/usr/bin/env bash
# The kernel matrix: every Debian kernel scripts/kernels.sh fetches (5.10,
# 6.1, 6.12; generic, cloud, rt), checked offline and booted, plus the
# running kernel.
#
#   scripts/vmtest.sh [--update-readme] [--only ID[,ID]] [--timeout SECS]
#
# Offline: `abicap check` on each kernel's vmlinuz (and the same on the raw
# BTF extracted by shell tools: both must agree), with the expected verdicts
# asserted; `abicap diff` between consecutive lines and on to the running
# kernel. Booted: each kernel under qemu (TCG) with an initramfs holding the
# static build/abicap-static (as abicap), busybox, build/pingpong, build/vmcheck and build/vmoracle; the guest
# (tests/vm/init) checks the contract, captures the ping-pong workload and
# judges it, records it again beside tracefs and matches the two event by
# event (TRUTH: matched/mismatched), and reports on the serial console. The running kernel runs the
# same sequence on the host. Results: build/vmtest/matrix.{txt,json}; exit
# 1 if any kernel fails. Needs root (the host run attaches BPF programs).
set -uo pipefail
export LC_ALL=C

cd "$(dirname "$0")/.."
OUT=build/vmtest
TIMEOUT=300
UPDATE_README=0
ONLY=
while [ $# -gt 0 ]; do
	case $1 in
	--update-readme) UPDATE_README=1 ;;
	--only) ONLY=$2; shift ;;
	--timeout) TIMEOUT=$2; shift ;;
	-h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "vmtest.sh: error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
for f in build/abicap build/abicap-static build/pingpong build/vmcheck build/vmoracle build/objload; do
	[ -x "$f" ] || { echo "vmtest.sh: error: $f missing: run make vmtest" >&2; exit 2; }
done
for t in qemu-system-x86_64 cpio jq; do
	command -v "$t" >/dev/null || { echo "vmtest.sh: error: $t missing: run scripts/setup.sh" >&2; exit 2; }
done
BUSYBOX=$(command -v busybox)
if [ -z "$BUSYBOX" ] || ! file -L "$BUSYBOX" | grep -q "statically linked"; then
	echo "vmtest.sh: error: a static busybox is needed (apt-get install busybox-static)" >&2
	exit 2
fi
rm -rf "$OUT" && mkdir -p "$OUT"

echo "vmtest: fetching kernels (scripts/kernels.sh)"
scripts/kernels.sh > "$OUT/manifest.tsv" 2> "$OUT/kernels.log"
cat "$OUT/kernels.log" >&2

# --- the initramfs ---------------------------------------------------------
root=$OUT/initramfs
mkdir -p "$root"/{bin,dev,proc,sys,tmp,objs}
cp "$BUSYBOX" "$root/bin/busybox"
cp build/abicap-static "$root/abicap"
cp build/pingpong build/vmcheck build/vmoracle build/objload "$root/"
cp build/tests/bpf/*.bpf.o "$root/objs/"
cp tests/vm/init "$root/init"
chmod 755 "$root/init"
mknod "$root/dev/console" c 5 1
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$OUT/initramfs.cpio.gz"

# --- expected offline verdicts ----------------------------------------------
# Non-ok items per kernel (scope/item, sorted). 5.10 predates
# task_struct.__state (5.14), thread_info.cpu (5.16) and the prev_state
# argument (5.18), and its sched_wakeup record still has `success`; Debian's
# 5.10-rt also has a ring buffer whose spinlock_t is a sleeping rt_mutex.
expected_nonok() {
	local v510="sched_switch/arg 4 prev_state,sched_wakeup/record.success,sched_wakeup/record.target_cpu,task_struct/__state,task_struct/thread_info.cpu"
	case $1 in
	5.10-rt-amd64) echo "bpf_ringbuf/spinlock,$v510" ;;
	5.10-*) echo "$v510" ;;
	*) echo "" ;;
	esac
}

nonok_items() { # check JSON -> sorted "scope/item" list of non-ok items
	jq -r '[.items[] | select(.verdict != "ok") | .scope + "/" + .item] | sort | join(",")' "$1"
}

declare -a ROWS
pass=0
fail=0
selected() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

# abicap check --object's prediction for every test object on one kernel,
# "NAME loads|rejected" lines, sorted.
predict_objects() {
	local btf=$1 o
	for o in build/tests/bpf/*.bpf.o; do
		build/abicap check --object "$o" --btf "$btf" --format json 2>/dev/null |
			jq -r --arg n "$(basename "$o")" '"\($n) \(if .kernels[0].loads then "loads" else "rejected" end)"'
	done | sort
}

# What objload did in the guest, same form.
real_objects() {
	grep -a '^ABICAP-OBJ ' "$1" | tr -d '\r' | awk '{print $2, $3}' | sort
}

# abicap's own object over the contract: the sched_switch program the
# contract's verdicts choose (4 arguments where prev_state checked ok) is
# predicted to load, and the other one exactly where it is not chosen.
own_object_agrees() {
	local btf=$1 check=$2 four pred4 pred3
	four=$(jq -r '[.items[] | select(.scope == "sched_switch" and .item == "arg 4 prev_state")][0].verdict == "ok"' "$check")
	pred=$(build/abicap check --object build/abicap.bpf.o --btf "$btf" --format json 2>/dev/null)
	pred4=$(jq -r '.kernels[0].programs[] | select(.name == "tp_btf_sched_switch") | .loads' <<<"$pred")
	pred3=$(jq -r '.kernels[0].programs[] | select(.name == "tp_btf_sched_switch_3") | .loads' <<<"$pred")
	[ "$pred4" = "$four" ] && [ "$pred3" = true ]
}

# One boot of one kernel, its serial console into $log; qemu's exit status.
boot_once() {
	local vmlinuz=$1 log=$2
	timeout --foreground "$TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 768 \
		-display none -serial stdio -monitor none -no-reboot \
		-kernel "$vmlinuz" -initrd "$OUT/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 oops=panic quiet loglevel=3 rdinit=/init" \
		< /dev/null > "$log" 2>&1
}

# One kernel's booted run: prints the ABICAP-RESULT JSON, or a failure reason.
# A boot that does not finish is tried once more (its log kept as .log.1):
# TCG emulation has hung here once in several dozen boots.
boot() {
	local id=$1 vmlinuz=$2 log=$OUT/$1.log rc res
	boot_once "$vmlinuz" "$log"
	rc=$?
	if ! grep -aq '^ABICAP-DONE' "$log"; then
		mv "$log" "$log.1"
		echo "vmtest: $id: the boot did not finish (exit $rc; $log.1); trying once more" >&2
		boot_once "$vmlinuz" "$log"
		rc=$?
	fi
	res=$(grep -a '^ABICAP-RESULT ' "$log" | tail -1 | cut -d' ' -f2-)
	if [ -n "$res" ] && grep -aq '^ABICAP-DONE' "$log"; then
		echo "$res"
	elif [ $rc -eq 124 ]; then
		echo "timed out after ${TIMEOUT} s, twice (logs: $log.1, $log; last object tried: $(grep -a '^ABICAP-OBJ-TRY' "$log" | tail -1 | cut -d' ' -f2 | tr -d '\r'))"
	elif grep -aq "Kernel panic" "$log"; then
		echo "kernel panic: $(grep -a -m1 'Kernel panic' "$log" | tr -d '\r' | cut -c1-120)"
	else
		echo "no result from the guest (qemu exit $rc; log: $log)"
	fi
}

# The same sequence as tests/vm/init, on the host's running kernel.
host_run() {
	local d=$OUT/host tpid crc trc n=0
	mkdir -p "$d"
	build/abicap check --format json > "$d/check.json" 2> "$d/check.err"
	crc=$?
	build/abicap trace --format json -b 64 > "$d/trace.json" 2> "$d/trace.err" &
	tpid=$!
	until grep -q "abicap: tracing" "$d/trace.err"; do
		n=$((n + 1))
		if [ $n -gt 600 ] || ! kill -0 $tpid 2>/dev/null; then break; fi
		sleep 0.1
	done
	build/pingpong 2 0 > "$d/pp.json" 2> "$d/pp.err"
	sleep 1
	kill -INT $tpid
	wait $tpid
	trc=$?
	build/vmcheck "$d/check.json" $crc "$d/pp.json" "$d/trace.json" "$d/trace.err" $trc |
		cut -d' ' -f2-
	build/objload build/tests/bpf/*.bpf.o > "$d/objload.log"
	build/vmoracle build/abicap build/pingpong "$d" > "$d/truth.txt" 2> "$d/truth.err"
}

# The oracle's line (tests/tools/vmoracle.c) from a log, as JSON ("" if none).
truth_of() { grep -a '^ABICAP-TRUTH ' "$1" 2>/dev/null | tail -1 | cut -d' ' -f2- | tr -d '\r'; }

# --- each kernel -------------------------------------------------------------
matrix_json="[]"
while IFS=$'\t' read -r id line flavour pkg ver release dir status; do
	selected "$id" || continue
	echo "vmtest: $id ($pkg $ver)"
	offline="ok" contract="-" boot_res="" reason="" objects="-"
	if [[ $status != ok ]]; then
		reason=$status
	else
		build/abicap check --btf "$dir/vmlinuz" --format json > "$OUT/$id.check.json" 2> "$OUT/$id.check.err"
		crc=$?
		build/abicap check --btf "$dir/vmlinux.btf" --format json > "$OUT/$id.check-btf.json" 2>&1
		if [ $crc -ne 0 ]; then
			reason="abicap check exited $crc: $(head -c 200 "$OUT/$id.check.err")"
		else
			contract=$(jq -r .verdict "$OUT/$id.check.json")
			got=$(nonok_items "$OUT/$id.check.json")
			want=$(expected_nonok "$id")
			if [ "$got" != "$want" ]; then
				reason="offline verdicts differ: got [$got], expected [$want]"
			elif [ "$(jq -c .summary "$OUT/$id.check.json")" != "$(jq -c .summary "$OUT/$id.check-btf.json" 2>/dev/null)" ]; then
				reason="vmlinuz and extracted vmlinux.btf give different verdicts"
			fi
		fi
		if [ -z "$reason" ] && ! own_object_agrees "$dir/vmlinuz" "$OUT/$id.check.json"; then
			reason="check --object build/abicap.bpf.o disagrees with the contract's choice of sched_switch program"
		fi
		[ -n "$reason" ] && offline="FAIL"
		boot_res=$(boot "$id" "$dir/vmlinuz")
		predict_objects "$dir/vmlinuz" > "$OUT/$id.objects.predicted"
		real_objects "$OUT/$id.log" > "$OUT/$id.objects.real"
		objects="$(grep -c loads "$OUT/$id.objects.real")/$(wc -l < "$OUT/$id.objects.real") load, as predicted"
		if [ -z "$reason" ] && ! diff -q "$OUT/$id.objects.predicted" "$OUT/$id.objects.real" >/dev/null; then
			reason="check --object mispredicted: $(diff "$OUT/$id.objects.predicted" "$OUT/$id.objects.real" | grep '^[<>]' | tr '\n' ' ')"
			objects="MISPREDICTED"
		fi
		if [ -z "$reason" ] && [ ! -s "$OUT/$id.objects.real" ]; then
			reason="no test object results from the guest"
		fi
	fi
	truth=""
	[[ $status == ok ]] && truth=$(truth_of "$OUT/$id.log")
	row=$(jq -n --arg id "$id" --arg line "$line" --arg flavour "$flavour" \
		--arg pkg "$pkg" --arg ver "$ver" --arg release "$release" \
		--arg contract "$contract" --arg reason "$reason" --arg boot "$boot_res" \
		--arg offline "$offline" --arg objects "$objects" --arg truth "$truth" '
		($boot | try fromjson catch null) as $b |
		($truth | try fromjson catch null) as $t |
		{id: $id, line: $line, flavour: $flavour, package: $pkg, version: $ver,
		 release: $release, contract: $contract, offline: $offline,
		 booted: $b, objects: $objects, truth: $t,
		 reason: (if $reason != "" then $reason
			  elif $b == null then $boot
			  elif ($b.pass | not) then ($b.failures | join("; "))
			  elif $t == null then "no oracle result from the guest"
			  elif $t.error then "oracle: \($t.error)"
			  elif $t.mismatched > 0 then "oracle: \($t.mismatched) events differ from tracefs:\($t.first | split("\n") | .[0:4] | join(" "))"
			  else "" end)}
		| .pass = (.reason == "")')
	matrix_json=$(jq --argjson r "$row" '. + [$r]' <<<"$matrix_json")
	if jq -e .pass <<<"$row" >/dev/null; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	jq -r '"vmtest: \(.id): \(if .pass then "pass" else "FAIL: \(.reason)" end)"' <<<"$row"
done < "$OUT/manifest.tsv"

# --- the running kernel ----------------------------------------------------------
if selected running; then
	echo "vmtest: running kernel $(uname -r) (on the host)"
	res=$(host_run)
	predict_objects /sys/kernel/btf/vmlinux > "$OUT/running.objects.predicted"
	real_objects "$OUT/host/objload.log" > "$OUT/running.objects.real"
	objects="$(grep -c loads "$OUT/running.objects.real")/$(wc -l < "$OUT/running.objects.real") load, as predicted"
	oreason=""
	if ! diff -q "$OUT/running.objects.predicted" "$OUT/running.objects.real" >/dev/null; then
		oreason="check --object mispredicted: $(diff "$OUT/running.objects.predicted" "$OUT/running.objects.real" | grep '^[<>]' | tr '\n' ' ')"
		objects="MISPREDICTED"
	fi
	truth=$(truth_of "$OUT/host/truth.txt")
	row=$(jq -n --arg release "$(uname -r)" --arg boot "$res" --arg objects "$objects" \
		--arg oreason "$oreason" --arg truth "$truth" '
		($boot | try fromjson catch null) as $b |
		($truth | try fromjson catch null) as $t |
		{id: "running", line: "running", flavour: "host", package: "-", version: "-",
		 release: $release, contract: ($b.contract // "-"), offline: "ok", booted: $b,
		 objects: $objects, truth: $t,
		 reason: (if $b == null then $boot elif ($b.pass | not)
			  then ($b.failures | join("; "))
			  elif $oreason != "" then $oreason
			  elif $t == null then "no oracle result"
			  elif $t.error then "oracle: \($t.error)"
			  elif $t.mismatched > 0 then "oracle: \($t.mismatched) events differ from tracefs:\($t.first | split("\n") | .[0:4] | join(" "))"
			  else "" end)}
		| .pass = (.reason == "")')
	matrix_json=$(jq --argjson r "$row" '. + [$r]' <<<"$matrix_json")
	if jq -e .pass <<<"$row" >/dev/null; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	jq -r '"vmtest: running: \(if .pass then "pass" else "FAIL: \(.reason)" end)"' <<<"$row"
fi

# --- ABI history between the lines (generic flavour) -------------------------------
history=$OUT/history.txt
: > "$history"
prev=""
while IFS=$'\t' read -r id line flavour pkg ver release dir status; do
	[[ $flavour == amd64 && $status == ok ]] || continue
	if [ -n "$prev" ]; then
		build/abicap diff "$prev_dir/vmlinuz" "$dir/vmlinuz" > "$OUT/diff-$prev-$line.txt"
		printf '%s\t%s\t%s\n' "$prev" "$line" "$OUT/diff-$prev-$line.txt" >> "$history"
	fi
	prev=$line prev_dir=$dir
done < "$OUT/manifest.tsv"
if [ -n "$prev" ]; then
	build/abicap diff "$prev_dir/vmlinuz" /sys/kernel/btf/vmlinux > "$OUT/diff-$prev-running.txt"
	printf '%s\t%s\t%s\n' "$prev" "running $(uname -r | cut -d- -f1)" "$OUT/diff-$prev-running.txt" >> "$history"
fi
# the one diff whose content is known: 5.10 -> 6.1 deletes sched_wakeup.success
if [ -f "$OUT/diff-5.10-6.1.txt" ] && ! grep -q "BREAKING  record trace_event_raw_sched_wakeup_template.success: deleted" "$OUT/diff-5.10-6.1.txt"; then
	echo "vmtest: FAIL: abicap diff 5.10 -> 6.1 does not name the sched_wakeup.success deletion" >&2
	fail=$((fail + 1))
fi

# --- output ------------------------------------------------------------------------
jq . <<<"$matrix_json" > "$OUT/matrix.json"
jq -r '
	def ev($k): (.booted.events[$k] // 0 | tostring);
	def truth: if .truth == null then "-" elif .truth.error then "error"
		else "\(.truth.matched)/\(.truth.mismatched)" end;
	(["KERNEL", "PACKAGE VERSION", "CONTRACT", "VARIANT", "SWITCH", "WAKEUP", "WAKING", "IDLE", "DROPS", "TRUTH", "OBJECTS", "RESULT"] | @tsv),
	(.[] | [.release, .version,
		(if .contract == "degraded" then "degraded (\(.booted.degraded // "?"))" else .contract end),
		(.booted.variant // "-"), ev("sched_switch"), ev("sched_wakeup"), ev("sched_waking"),
		ev("cpu_idle"), (.booted.dropped // "-" | tostring), truth, .objects,
		(if .pass then "pass" else "FAIL" end)] | @tsv)' "$OUT/matrix.json" |
	column -t -s $'\t' > "$OUT/matrix.txt"
{
	echo "| from | to | change (abicap diff) |"
	echo "| --- | --- | --- |"
	while IFS=$'\t' read -r from to file; do
		lines=$(grep -E '^(ok|BREAKING) ' "$file" | sed -E 's/^(ok|BREAKING) +//; s/\|/\\|/g')
		[ -n "$lines" ] || lines="no change"
		while IFS= read -r l; do
			kind=$(grep -qF "BREAKING  $l" "$file" && echo "**breaking**: " || echo "")
			[ "$l" = "no change" ] && kind=""
			echo "| $from | $to | $kind$l |"
		done <<<"$lines"
	done < "$history"
} > "$OUT/history.md"

echo
cat "$OUT/matrix.txt"
echo
cat "$OUT/history.md"
jq -r '.[] | select(.pass | not) | "vmtest: FAIL \(.id): \(.reason)"' "$OUT/matrix.json"

if [ $UPDATE_README -eq 1 ]; then
	{
		echo "<!-- matrix:begin (scripts/vmtest.sh --update-readme, $(date -u +%Y-%m-%d)) -->"
		echo '```'
		cat "$OUT/matrix.txt"
		echo '```'
		echo
		echo "ABI history of abicap's events between the kernels tested, as \`abicap diff\` reports it (generic flavour):"
		echo
		cat "$OUT/history.md"
		echo "<!-- matrix:end -->"
	} > "$OUT/readme-section.md"
	awk -v sec="$OUT/readme-section.md" '
		/<!-- matrix:begin/ { while ((getline l < sec) > 0) print l; skip = 1; next }
		/<!-- matrix:end -->/ { skip = 0; next }
		!skip' README.md > "$OUT/README.new" && mv "$OUT/README.new" README.md
	echo "vmtest: README.md matrix updated"
fi
echo "vmtest: $pass passed, $fail failed"
[ $fail -eq 0 ]
