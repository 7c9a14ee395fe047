#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# scripts/bench.sh [--update-readme]: abicap's benchmark on this machine
# (make bench). Root; needs perf, and bpftrace for its rows.
#
#   1. per-event BPF cost of abicap's programs (bpf_stats, build/bpfstats)
#      beside an empty program on the same tracepoint, and of variants of the
#      sched_switch program (tests/bench/switch_cost.bpf.c)
#   2. workload slowdown vs untraced, interleaved: every round runs every
#      setup once on each workload, in the same order, each traced run
#      between two untraced ones (its ratio: against their mean); setup
#      floor: the floor programs of 8. attached (bpfstats -n), what writing
#      record's records costs at the least
#   3. lossless rate: seen/dropped (kernel) vs received, 3 of 3 runs
#   4. capture bytes per event (vs perf.data) and consumer CPU per M events
#   5. user-space decode (export --perfetto, report) of a capture, one core
#   6. every command that reads a capture (report, export, timechart,
#      heatmap, script) on crafted captures (build/capgen: equal times, a
#      new task per record (ids consecutive, or 1024 apart), times reversed or
#      scattered), at two sizes: time
#      and peak memory must grow linearly and stay bounded. Alone, without
#      root or BPF: scripts/bench.sh --crafted [--update-readme] (its table
#      goes between <!-- crafted:begin --> and <!-- crafted:end -->)
#   7. report's scaling on the crafted inputs of issue 21 (cgroup names no
#      record uses, cgroup blocks numbered 0,2,4,..., --by cgroup over many
#      cgroups, a shuffled capture and its sorted original) at two sizes,
#      and report/export peak RSS per million records. Alone, without root:
#      scripts/bench.sh report-scaling [--update-readme] (between
#      <!-- report-scaling:begin --> and <!-- report-scaling:end -->)
#   8. the floor (tests/bench/floor.bpf.c, docs/floor.md): each abicap
#      program's ns/run against the least program that writes the same
#      record on the same tracepoint, and empty / clock / reserve+submit,
#      interleaved in the same rounds. Alone: scripts/bench.sh floor
#      [--update-readme] (its table goes between <!-- floor:begin --> and
#      <!-- floor:end -->)
#   Alone, 5. (a capture recorded, then decoded): scripts/bench.sh decode
#   [--update-readme] (its line, and the decode target's row, in docs/results.md)
#   9. contention on the transport: abicap's BPF cost per event (bpf_stats)
#      and the workload's usecs/op with one ring buffer shared by every CPU
#      and with one per CPU, one CPU writing (a pinned pipe) and every CPU
#      writing (a pinned pipe per CPU), interleaved rounds. Alone:
#      scripts/bench.sh contention [--update-readme] (its table goes between
#      <!-- contention:begin --> and <!-- contention:end -->; method in
#      docs/transport.md)
#  10. overload: abicap record and perf record, each with its defaults, the
#      same six events for 1 s, in turn beside two hackbench groups,
#      stress-ng --cpu 4 and the ping-pong: the share of events each lost.
#      Alone: scripts/bench.sh overload [--update-readme] (between
#      <!-- overload:begin --> and <!-- overload:end -->)
#
# Environment: BENCH_ROUNDS (default 7, 3 with BENCH_QUICK=1), BENCH_SETUPS
# and BENCH_WORKLOADS (the slowdown's, default all), BENCH_QUICK=1
# (smaller loads, for development), BENCH_OUT (default /dev/shm/abicap-bench),
# BENCH_SERVE_ARGS (abicap serve's arguments, else found from its --help).
# The measurements hold /tmp/abicap-bpf.lock. The table goes to stdout and
# $BENCH_OUT/table.md; --update-readme also writes it into docs/results.md between
# <!-- bench:begin --> and <!-- bench:end -->.
set -u -o pipefail

cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
ABICAP=$ROOT/build/abicap
BPFSTATS=$ROOT/build/bpfstats
EMPTY_OBJ=$ROOT/build/tests/bench/empty.bpf.o
COST_OBJ=$ROOT/build/tests/bench/switch_cost.bpf.o
OUT=${BENCH_OUT:-/dev/shm/abicap-bench}
QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then
	ROUNDS=${BENCH_ROUNDS:-3}
	PIPE_LOOPS=50000 MSG_LOOPS=50 COST_LOOPS=30000 DECODE_LOOPS=200000
else
	ROUNDS=${BENCH_ROUNDS:-7}
	PIPE_LOOPS=200000 MSG_LOOPS=200 COST_LOOPS=100000 DECODE_LOOPS=1000000
fi
if [ "$QUICK" = 1 ]; then
	CRAFT_SIZES="100000 400000"
else
	CRAFT_SIZES="250000 1000000"
fi
UPDATE_README=0 CRAFTED_ONLY=0 SCALING_ONLY=0 FLOOR_ONLY=0 DECODE_ONLY=0 CONTENTION_ONLY=0 OVERLOAD_ONLY=0
for arg in "$@"; do
	case "$arg" in
	--update-readme) UPDATE_README=1 ;;
	--crafted) CRAFTED_ONLY=1 ;;
	report-scaling) SCALING_ONLY=1 ;;
	floor) FLOOR_ONLY=1 ;;
	decode) DECODE_ONLY=1 ;;
	contention) CONTENTION_ONLY=1 ;;
	overload) OVERLOAD_ONLY=1 ;;
	-h | --help)
		sed -n '3,56p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "bench.sh: error: unknown argument '$arg' (floor, decode, contention, overload, report-scaling, --crafted, --update-readme)" >&2
		exit 2
		;;
	esac
done

die() {
	echo "bench.sh: error: $*" >&2
	exit "${2:-1}"
}

# 6. crafted captures: report and export, one core, wall time and peak RSS
crafted_dir() { # DIR: made, and build/capgen there to fill it
	mkdir -p "$1" || die "cannot create $1"
	[ -x "$ROOT/build/capgen" ] || die "build/capgen is missing: make build/capgen" 2
}

crafted_cell() { # DIR CMD...: "wall s, peak MB" of one command on CPU 1
	local dir=$1 t
	shift
	/usr/bin/time -f "%e %M" -o "$dir/cmd.time" taskset -c 1 "$@" >/dev/null 2>&1
	t=$(tail -1 "$dir/cmd.time")
	echo "${t% *} s, $((${t#* } / 1024)) MB"
}

crafted() { # DIR: the table on stdout
	local dir=$1 spec kind meta n f sz row
	crafted_dir "$dir"
	echo "**Crafted captures** (build/capgen; every command that reads a capture, on one core: wall seconds, peak RSS MB; at the larger size time should be about 4x, memory bounded; timechart and heatmap refuse a capture whose records all have one time, exit 2):"
	echo
	echo "| capture | records | file KB | report | export --perfetto | timechart | heatmap | script |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
	for spec in same-ts same-ts/nometa many-pids stride-pids reverse shuffled; do
		kind=${spec%/*} meta=meta
		[ "$spec" != "$kind" ] && meta=${spec#*/}
		for n in $CRAFT_SIZES; do
			f=$dir/$kind.$meta.$n.abicap
			"$ROOT/build/capgen" "$kind" "$n" "$f" "$meta" || die "capgen $spec $n failed"
			sz=$(($(stat -c %s "$f") / 1024))
			row="| $spec | $n | $sz"
			row="$row | $(crafted_cell "$dir" "$ABICAP" report "$f")"
			row="$row | $(crafted_cell "$dir" "$ABICAP" export "$f" --perfetto "$dir/x.pftrace" --force)"
			row="$row | $(crafted_cell "$dir" "$ABICAP" timechart "$f" -o "$dir/x.html" --force)"
			row="$row | $(crafted_cell "$dir" "$ABICAP" heatmap "$f" -o "$dir/x.html" --force)"
			row="$row | $(crafted_cell "$dir" "$ABICAP" script "$f")"
			echo "$row |"
			rm -f "$f" "$dir/x.pftrace" "$dir/x.html"
		done
	done
}

# 7. report's time and peak RSS per input size on issue 21's crafted inputs
scaling_row() { # DIR LABEL KIND N [REPORT ARGS...]: one table row
	local dir=$1 label=$2 kind=$3 n=$4 f rep exp code
	shift 4
	f=$dir/$kind.$n.abicap
	"$ROOT/build/capgen" "$kind" "$n" "$f" || die "capgen $kind $n failed"
	/usr/bin/time -f "%e %U %S %M" -o "$dir/report.time" \
		taskset -c 1 "$ABICAP" report "$f" "$@" >/dev/null 2>&1
	code=$?
	/usr/bin/time -f "%e %U %S %M" -o "$dir/export.time" \
		taskset -c 1 "$ABICAP" export "$f" --perfetto "$dir/x.pftrace" --force >/dev/null 2>&1
	rep=($(tail -1 "$dir/report.time")) exp=($(tail -1 "$dir/export.time"))
	echo "| $label | $n | $(($(stat -c %s "$f") / 1024)) | ${rep[0]} | $(awk -v u="${rep[1]}" -v s="${rep[2]}" 'BEGIN {printf "%.2f", u + s}') | $((rep[3] / 1024)) | $code | ${exp[0]} | $((exp[3] / 1024)) |"
	REP_KB=${rep[3]} EXP_KB=${exp[3]}
	rm -f "$f" "$dir/x.pftrace"
}

report_scaling() { # DIR: the table on stdout
	local dir=$1 n
	crafted_dir "$dir"
	echo "**Report scaling** (issue 21; build/capgen; \`report\` and \`export --perfetto\` on one core: wall seconds, report's CPU seconds (user + system: what scales; wall time carries the machine's other load), peak RSS MB; N is names, blocks, cgroups or records; exit 5: a damaged file, as crafted):"
	echo
	echo "| input | N | file KB | report s | report CPU s | report MB | exit | export s | export MB |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for n in 500000 2000000; do scaling_row "$dir" "cgroup names no record uses" unused-cgroups "$n"; done
	for n in 75000 300000; do scaling_row "$dir" "cgroup blocks 0,2,4,..." cgroup-gaps "$n"; done
	for n in 10000 40000; do scaling_row "$dir" "--by cgroup, a cgroup a task" many-cgroups "$n" --by cgroup; done
	for n in 250000 1000000; do
		scaling_row "$dir" "shuffled" shuffled "$n"
		scaling_row "$dir" "its sorted original" sorted "$n"
	done
	echo
	echo "Peak RSS per million records (the sorted 1,000,000): report $((REP_KB / 1024)) MB, export $((EXP_KB / 1024)) MB."
}

into_readme() { # MARKER HOW TABLE: TABLE into docs/results.md between the MARKER comments
	awk -v m="$1" -v how="$2" -v table="$3" '
		index($0, "<!-- " m ":begin") { print "<!-- " m ":begin (" how ") -->"; while ((getline l < table) > 0) print l; skip = 1; next }
		index($0, "<!-- " m ":end -->") { skip = 0 }
		!skip' docs/results.md >"$OUT/results.$1.md" && cp "$OUT/results.$1.md" docs/results.md
}

crafted_readme() { # TABLE: into docs/results.md between the crafted markers
	into_readme crafted "scripts/bench.sh --crafted --update-readme" "$1"
}

run_alone() { # FUNCTION MARKER HOW: one section without root, its table maybe into docs/results.md
	[ -x "$ABICAP" ] || die "$ABICAP is missing: run make first" 2
	mkdir -p "$OUT" || die "cannot create $OUT"
	{
		echo "Measured $(date +%F) on $(uname -r), $(nproc) CPUs."
		echo
		"$1" "$OUT/$2"
	} >"$OUT/$2.md"
	cat "$OUT/$2.md"
	[ "$UPDATE_README" = 1 ] && into_readme "$2" "$3" "$OUT/$2.md" && echo "bench: docs/results.md updated" >&2
	exit 0
}

[ "$SCALING_ONLY" = 1 ] && run_alone report_scaling report-scaling "scripts/bench.sh report-scaling --update-readme"
[ "$CRAFTED_ONLY" = 1 ] && run_alone crafted crafted "scripts/bench.sh --crafted --update-readme"

[ "$(id -u)" = 0 ] || die "run as root (it loads BPF programs): sudo make bench" 3
for f in "$ABICAP" "$BPFSTATS" "$EMPTY_OBJ" "$COST_OBJ" "$ROOT/build/tests/bench/waking_cost.bpf.o" "$ROOT/build/tests/bench/floor.bpf.o"; do
	[ -x "$f" ] || [ -f "$f" ] || die "$f is missing: run make bench-tools first" 2
done
command -v perf >/dev/null || die "perf is missing: run scripts/setup.sh" 2
HAVE_BPFTRACE=0
command -v bpftrace >/dev/null && HAVE_BPFTRACE=1
# libbpf-tools' runqlat and runqslower (Debian: /usr/sbin)
HAVE_RUNQ=0 RUNQ_DIR=/usr/sbin
[ -x "$RUNQ_DIR/runqlat" ] && [ -x "$RUNQ_DIR/runqslower" ] && HAVE_RUNQ=1
HAVE_SERVE=0
if "$ABICAP" serve --help >/dev/null 2>&1; then
	HAVE_SERVE=1
	SERVE_PORT=19464
	if [ -z "${BENCH_SERVE_ARGS:-}" ]; then
		help=$("$ABICAP" serve --help 2>&1)
		if grep -q -- '--listen' <<<"$help"; then
			BENCH_SERVE_ARGS="--listen 127.0.0.1:$SERVE_PORT"
		elif grep -q -- '--port' <<<"$help"; then
			BENCH_SERVE_ARGS="--port $SERVE_PORT"
		else
			BENCH_SERVE_ARGS=""
		fi
	fi
fi

# contention alone keeps the full run's results
[ "$CONTENTION_ONLY" = 1 ] && OUT=$OUT/contention-run
rm -rf "$OUT"
mkdir -p "$OUT"/{cost,slow,loss,decode,floor}
LOG=$OUT/log.txt
: >"$LOG"
conditions() { # the line each table starts with: where, what clock, what load
	local cs
	cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)
	printf 'Measured %s on kernel %s, %s CPUs, clocksource %s; load %s at the start, %s at the end' \
		"$(date -u +%F)" "$(uname -r)" "$(nproc)" "$cs" "${LOAD0:-unknown}" "$(cut -d' ' -f1 /proc/loadavg)"
	awk -v l="${LOAD0:-0}" 'BEGIN {exit !(l > 1)}' &&
		printf ' (**started above load 1: not a quiet machine, the figures are indicative only**)'
	echo "; $ROUNDS rounds."
}
log() { echo "bench: $*" | tee -a "$LOG" >&2; }

# the tracepoints record writes by default (sched_waking: its program finds
# the wakers, writing no record; perf needs its records for them)
PERF_EVENTS="sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new,power:cpu_idle,power:cpu_frequency"
# the fields abicap's JSON carries, printed per event
BT_PRINTF='
tracepoint:sched:sched_switch { printf("%llu %d sched_switch %s %d %d %d ==> %s %d %d\n", nsecs, cpu, args->prev_comm, args->prev_pid, args->prev_prio, args->prev_state, args->next_comm, args->next_pid, args->next_prio); }
tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new { printf("%llu %d %s %s %d %d %d\n", nsecs, cpu, probe, args->comm, args->pid, args->prio, args->target_cpu); }
tracepoint:power:cpu_idle { printf("%llu %d cpu_idle %u %u\n", nsecs, cpu, args->state, args->cpu_id); }'
BT_COUNT='
tracepoint:sched:sched_switch, tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new, tracepoint:power:cpu_idle, tracepoint:power:cpu_frequency { @[probe] = count(); }'

# ---- tracers: start_<setup> leaves TRACER_PID (the process to signal) and
# TIME_FILE (its CPU time: "user sys", from /usr/bin/time); stop_tracer ends it.
TRACER_PID='' TIME_PID=''
wait_for() { # FILE PATTERN: until FILE holds PATTERN (10 s at most)
	for _ in $(seq 200); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		kill -0 "$TIME_PID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
timed() { # TAG CMD...: run CMD in the background under /usr/bin/time
	local tag=$1
	shift
	/usr/bin/time -f "%U %S" -o "$OUT/$tag.time" "$@" &
	TIME_PID=$!
	for _ in $(seq 100); do
		TRACER_PID=$(pgrep -P "$TIME_PID" | head -1)
		[ -n "$TRACER_PID" ] && return 0
		sleep 0.01
	done
	return 1
}
start_tracer() { # SETUP TAG
	local setup=$1 tag=$2 err=$OUT/$2.err
	TRACER_PID='' TIME_PID=''
	case $setup in
	none) return 0 ;;
	record)
		timed "$tag" "$ABICAP" record -o "$OUT/$tag.abicap" --force 2>"$err" || return 1
		wait_for "$err" "abicap: recording"
		;;
	json)
		timed "$tag" "$ABICAP" trace -f json 2>"$err" >/dev/null || return 1
		wait_for "$err" "abicap: tracing"
		;;
	serve)
		# shellcheck disable=SC2086
		timed "$tag" "$ABICAP" serve $BENCH_SERVE_ARGS 2>"$err" >/dev/null || return 1
		for _ in $(seq 100); do
			curl -sf -o /dev/null "http://127.0.0.1:$SERVE_PORT/metrics" && return 0
			sleep 0.05
		done
		sleep 1 # no answer on the port: give it a second
		;;
	floor)
		# the floor's programs (record's defaults: fl_min_*, the waker
		# kept) attached, drained by abicap's reader, no bpf_stats: what
		# writing the same records costs the workload, nothing else
		need_pc_off
		timed "$tag" "$BPFSTATS" -n -r "fl_pc_off=$FL_PC_OFF" -l "$FLOOR_OBJ:$(floor_progs min)" -- sleep 86400 2>"$err" || return 1
		wait_for "$err" "bpfstats: attached"
		;;
	perf)
		timed "$tag" perf record -q -e "$PERF_EVENTS" -a -o "$OUT/$tag.perf.data" 2>"$err" || return 1
		sleep 1 # perf says nothing when it is ready
		;;
	runqlat | runqslower)
		# libbpf-tools: "Tracing run queue latency..." once attached
		# (stdbuf: a line at a time into the file); exec'd in place of
		# /usr/bin/time's child, so TRACER_PID is the tool itself
		timed "$tag" stdbuf -oL "$RUNQ_DIR/$setup" >"$OUT/$tag.out" 2>"$err" || return 1
		wait_for "$OUT/$tag.out" "Tracing"
		;;
	bt-printf | bt-count)
		local prog=$BT_PRINTF
		[ "$setup" = bt-count ] && prog=$BT_COUNT
		# its output through a pipe into cat > /dev/null, as a user would;
		# "Attaching N probes..." is the first line, when it is ready
		# bpftrace is exec'd in the place of the shell /usr/bin/time
		# started, so TRACER_PID is bpftrace itself (a pgrep for a
		# grandchild could run before it was forked: the SIGINT went
		# nowhere and the bench waited for ever)
		timed "$tag" bash -c 'exec bpftrace -e "$1" 2>"$2" > >({ IFS= read -r l; echo "$l" >"$3"; exec cat >/dev/null; })' \
			_ "$prog" "$err" "$OUT/$tag.ready" || return 1
		wait_for "$OUT/$tag.ready" "Attaching"
		;;
	esac
}
stop_tracer() { # SIGINT, then 30 s for it to end; past that, SIGKILL and say so
	[ -n "$TIME_PID" ] || return 0
	kill -INT "$TRACER_PID" 2>/dev/null
	for _ in $(seq 300); do
		kill -0 "$TIME_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$TIME_PID" 2>/dev/null; then
		echo "bench: error: pid $TRACER_PID ($(cat "/proc/$TRACER_PID/comm" 2>/dev/null)) did not end 30 s after SIGINT: killed" >&2
		pkill -KILL -P "$TIME_PID"
		kill -KILL "$TIME_PID" 2>/dev/null
	fi
	wait "$TIME_PID" 2>/dev/null
	TRACER_PID='' TIME_PID=''
}
# abicap's summary line: "abicap: 1.09 s: N events seen, N received, N dropped, N missed"
summary_counts() { # ERRFILE -> "seen received dropped"
	sed -n 's/^abicap: .* s: \([0-9]*\) events seen, \([0-9]*\) received, \([0-9]*\) dropped.*/\1 \2 \3/p' "$1" | tail -1
}

# ---- 7. the floor: abicap's programs (while it records, tp_btf and raw_tp)
# and tests/bench/floor.bpf.c's, each set in its own bpf_stats run on the
# same load, every set once a round, the order turned round by round
FLOOR_OBJ=$ROOT/build/tests/bench/floor.bpf.o
# record's defaults: sched_waking's program keeps the waker, no record,
# an interrupt's wakeup told apart (fl_min_waker_ctx; min-noctx: the same
# set with fl_min_waker, which does not tell it); abicap-all and min-all:
# -e all, its records written
FLOOR_EVENTS="sched_switch:switch sched_wakeup:wakeup_w sched_waking:waker_ctx cpu_idle:idle cpu_frequency:frequency"
# 6.3+ (the csd tracepoints): record runs no sched_waking program, its
# sched_wakeup names current (bpf/waker.bpf.h); -e all's sched_waking
# writes its records only
WAKELIST=0
if [ -e /sys/kernel/tracing/events/csd/csd_queue_cpu ]; then
	WAKELIST=1
	FLOOR_EVENTS="sched_switch:switch sched_wakeup:wakeup_cur cpu_idle:idle cpu_frequency:frequency"
fi
FLOOR_SETS="abicap abicap-raw abicap-all empty clock rb min min-noctx min-all"
# x86's per-CPU preempt_count: its distance from runqueues in the per-CPU
# section of the running kernel's BTF (abicap's loader: pc_off), for
# fl_min_waker_ctx; 0 where the kernel has no __preempt_count (the floor
# then reads as much, from the run queue itself)
floor_pc_off() {
	bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | awk '
		/^\[[0-9]+\] DATASEC / { sec = ($3 == "\047.data..percpu\047"); next }
		/^\[/ { sec = 0 }
		sec && match($0, /offset=[0-9]+/) {
			o = substr($0, RSTART + 7, RLENGTH - 7)
			if (match($0, /VAR \047[^\047]+\047/))
				off[substr($0, RSTART + 5, RLENGTH - 6)] = o }
		END {
			if (("runqueues" in off) && ("__preempt_count" in off))
				print off["__preempt_count"] - off["runqueues"]
			else
				print 0 }'
}
# read once, by the first run that loads the floor (0.8 s of BTF here:
# not on every start, --crafted and report-scaling need none)
FL_PC_OFF=
need_pc_off() { [ -n "$FL_PC_OFF" ] || FL_PC_OFF=$(floor_pc_off); }
floor_load() { # TSV BPFSTATS-ARGS...: the pinned pipe under bpfstats
	local tsv=$1
	shift
	"$BPFSTATS" "$@" -w "$tsv" -- taskset -c 0 perf bench sched pipe -l "$COST_LOOPS" >/dev/null
}
floor_progs() { # SET (empty, min, min-noctx, min-all): its programs, comma-separated
	local e progs=""
	for e in $FLOOR_EVENTS $([ "$1" = min-all ] && [ "$WAKELIST" = 1 ] && echo sched_waking:waking_ctx); do
		[ "$1" = min-all ] && [ "$e" = sched_waking:waker_ctx ] && e=sched_waking:waking_w
		[ "$1" = min-noctx ] && [ "$e" = sched_waking:waker_ctx ] && e=sched_waking:waker
		[ "$1" = min-noctx ] && [ "$e" = sched_wakeup:wakeup_cur ] && e=sched_wakeup:wakeup
		if [ "$1" = empty ]; then progs="$progs,fl_empty_${e%:*}"; else progs="$progs,fl_min_${e#*:}"; fi
	done
	echo "${progs#,}"
}
floor_set() { # SET ROUND
	local set=$1 r=$2 tsv=$OUT/floor/$1.$2.tsv
	case $set in
	abicap | abicap-raw | abicap-all)
		local attach=tp_btf events=()
		[ "$set" = abicap-raw ] && attach=raw_tp
		[ "$set" = abicap-all ] && events=(-e all)
		timed "floor/$set.$r" "$ABICAP" record --attach "$attach" "${events[@]}" -o "$OUT/floor/$set.abicap" --force \
			2>"$OUT/floor/$set.$r.err" || die "abicap record did not start"
		wait_for "$OUT/floor/$set.$r.err" "abicap: recording" ||
			die "abicap record did not start: $(cat "$OUT/floor/$set.$r.err")"
		floor_load "$tsv" -p "$TRACER_PID"
		stop_tracer
		rm -f "$OUT/floor/$set.abicap"
		;;
	empty | min | min-noctx | min-all)
		need_pc_off
		floor_load "$tsv" -r "fl_pc_off=$FL_PC_OFF" -l "$FLOOR_OBJ:$(floor_progs "$set")" ;;
	clock | rb) floor_load "$tsv" -l "$FLOOR_OBJ:fl_$set" ;;
	esac
}
floor_round() { # ROUND
	local r=$1 i
	local -a sets
	read -r -a sets <<<"$FLOOR_SETS"
	for ((i = 0; i < ${#sets[@]}; i++)); do
		floor_set "${sets[(i + r) % ${#sets[@]}]}" "$r"
	done
}
floor_field() { # NAME FIELD FILE: a program's field (3 runs, 5 ns/run) in one run
	awk -F'\t' -v n="$1" -v f="$2" '$1 == n {print $f; exit}' "$3" 2>/dev/null
}
floor_ratio() { # PROG SET FLOOR FLOORSET: median over the rounds of PROG/FLOOR
	local r a b
	for ((r = 1; r <= ROUNDS; r++)); do
		a=$(floor_field "$1" 5 "$OUT/floor/$2.$r.tsv")
		b=$(floor_field "$3" 5 "$OUT/floor/$4.$r.tsv")
		[ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN {if (a > 0 && b > 0) print a / b}'
	done | median
}
floor_prog() { # SET VARIANT EVENT: abicap's program that ran for EVENT in SET (its task-storage one if that ran, its plain-preempt_count one before that)
	local n
	for n in ${2}_${3}_ts_pc ${2}_${3}_ts ${2}_${3}; do
		[ "$(nsper "$n" "$OUT"/floor/"$1".*.tsv)" != nan ] && { echo "$n"; return 0; }
	done
}
floor_runs() { # SET PROG: its runs in one round, the median over the rounds
	awk -F'\t' -v n="$2" '$1 == n {print $3}' "$OUT"/floor/"$1".*.tsv | median
}
floor_row() { # SET EVENT KIND FLOORSET: a program's row (FLOOR_RATIO_<variant>_<event><suffix> set)
	local set=$1 ev=$2 kind=$3 fset=$4 pre=tp_btf p n a f em rt flag sfx="" label=$2
	[ "$set" = abicap-raw ] && pre=raw_tp
	[ "$set" = abicap-all ] && sfx=_all label="$ev (-e all)"
	p=$(floor_prog "$set" "$pre" "$ev")
	[ -n "$p" ] || return 0
	a=$(nsper "$p" "$OUT"/floor/"$set".*.tsv)
	n=$(floor_runs "$set" "$p")
	f=$(nsper "fl_min_$kind" "$OUT"/floor/"$fset".*.tsv)
	em=$(nsper "fl_empty_$ev" "$OUT"/floor/empty.*.tsv)
	[ "$n" = 0 ] && a=nan f=nan em=nan
	rt=$(floor_ratio "$p" "$set" "fl_min_$kind" "$fset")
	flag=""
	# no program costs less than the least that does its work; a row
	# of few runs (cpu_idle on the idle CPU) is indicative only
	if awk -v n="$n" 'BEGIN {exit !(n != "" && n < 10000)}'; then
		flag=" (indicative: few runs)"
	elif awk -v r="$rt" 'BEGIN {exit !(r != "nan" && r != "" && r < 0.95)}'; then
		flag=" (**below its floor: a measurement error**)" BELOW=$((BELOW + 1))
	fi
	echo "| $label | $p | $(fmt "$n" %.0f) | $(fmt "$a" %.0f) | fl_min_$kind | $(fmt "$f" %.0f) | $(fmt "$rt" "%.2fx")$flag | $(fmt "$em" %.0f) |"
	eval "FLOOR_RATIO_${pre}_$ev$sfx=\$rt"
}
floor_budget() { # per op of the pinned pipe, record's defaults and -e all
	local set ev p n ns bpf clk cpu r t
	echo "**Per-op budget** (one op: a round trip of the pinned pipe, $COST_LOOPS a run; medians over the rounds): what the BPF programs spend (their runs x ns/run, the wakelists' csd_* programs included, bpf_stats' ~20 ns a run included), the clock reads (one a record written: sched_waking's program run for its waker alone reads none), and record's own CPU time (user + system: draining, merging, writing; its start and end included):"
	echo
	echo "| record | BPF ns/op | clock reads (records) per op | record's CPU ns/op |"
	echo "| --- | --- | --- | --- |"
	for set in abicap abicap-all; do
		bpf=0 clk=0
		for ev in sched_switch sched_wakeup sched_wakeup_new sched_waking cpu_idle cpu_frequency; do
			p=$(floor_prog "$set" tp_btf "$ev")
			[ -n "$p" ] || continue
			n=$(floor_runs "$set" "$p")
			ns=$(nsper "$p" "$OUT"/floor/"$set".*.tsv)
			bpf=$(awk -v a="$bpf" -v n="$n" -v s="$ns" 'BEGIN {print a + n * s}')
			[ "$ev" = sched_waking ] && [ "$set" = abicap ] && continue
			clk=$(awk -v a="$clk" -v n="$n" 'BEGIN {print a + n}')
		done
		# the wakelists' programs (6.3+), no clock read
		for p in raw_tp_csd_queue_cpu raw_tp_csd_function_entry raw_tp_csd_function_exit; do
			ns=$(nsper "$p" "$OUT"/floor/"$set".*.tsv)
			[ "$ns" != nan ] || continue
			n=$(floor_runs "$set" "$p")
			bpf=$(awk -v a="$bpf" -v n="$n" -v s="$ns" 'BEGIN {print a + n * s}')
		done
		cpu=$(for ((r = 1; r <= ROUNDS; r++)); do
			t=$OUT/floor/$set.$r.time
			[ -s "$t" ] && tail -1 "$t" | awk '{print ($1 + $2) * 1e9}'
		done | median)
		echo "| $([ "$set" = abicap ] && echo "defaults" || echo "\`-e all\`") | $(fmt "$(awk -v b="$bpf" -v l="$COST_LOOPS" 'BEGIN {print b / l}')" %.0f) | $(fmt "$(awk -v c="$clk" -v l="$COST_LOOPS" 'BEGIN {print c / l}')" %.2f) | $(fmt "$(awk -v c="$cpu" -v l="$COST_LOOPS" 'BEGIN {if (c == "nan") print "nan"; else print c / l}')" %.0f) |"
	done
}
floor_path() { # SET FLOORSET WAKINGFLOOR [ratio]: one wakeup's path, abicap's against the floor's (the text, or its ratio)
	local set=$1 fset=$2 wk=$3 a1=0 a2 f1=0 f2 rt wu=wakeup_w p
	[ "$WAKELIST" = 1 ] && wu=wakeup_cur
	p=$(floor_prog "$set" tp_btf sched_waking)
	[ -n "$p" ] && a1=$(nsper "$p" "$OUT"/floor/"$set".*.tsv)
	a2=$(nsper "$(floor_prog "$set" tp_btf sched_wakeup)" "$OUT"/floor/"$set".*.tsv)
	[ "$wk" != none ] && f1=$(nsper "fl_min_$wk" "$OUT"/floor/"$fset".*.tsv)
	f2=$(nsper "fl_min_$wu" "$OUT"/floor/"$fset".*.tsv)
	rt=$(awk -v a="$a1" -v b="$a2" -v c="$f1" -v d="$f2" 'BEGIN {if (c + d > 0 && a != "nan" && b != "nan") print (a + b) / (c + d); else print "nan"}')
	if [ "${4:-}" = ratio ]; then echo "$rt"; return; fi
	if [ "$wk" = none ]; then
		echo "$(fmt "$a2" %.0f) ns (no sched_waking program) against fl_min_$wu $(fmt "$f2" %.0f): $(fmt "$rt" "%.2fx")"
		return
	fi
	echo "$(fmt "$a1" %.0f) + $(fmt "$a2" %.0f) ns against fl_min_$wk + fl_min_$wu $(fmt "$f1" %.0f) + $(fmt "$f2" %.0f): $(fmt "$rt" "%.2fx")"
}
floor_table() { # the table, markers included (docs/results.md between them)
	local e set rt targets="" ev2
	BELOW=0
	echo "<!-- floor:begin (scripts/bench.sh floor --update-readme) -->"
	conditions
	echo
	echo "**Programs at their floor** (bpf_stats ns/run, medians of $ROUNDS rounds, \`taskset -c 0 perf bench sched pipe -l $COST_LOOPS\`; every set in its own run on the same load, the sets interleaved in each round; ratio: the median of the rounds' ratios; bpf_stats itself adds ~20 ns a run; method in docs/floor.md). record's defaults, then \`-e all\` (sched_waking's records written: its floor writes them too, loaded with the other fl_min_* as \`-e all\` loads abicap's):"
	echo
	echo "| event | abicap program | runs | ns/run | floor: the same work, nothing else (tests/bench/floor.bpf.c) | ns/run | ratio | empty program ns/run |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
	for set in abicap abicap-raw; do
		for e in $FLOOR_EVENTS; do
			floor_row "$set" "${e%:*}" "${e#*:}" min
		done
	done
	local wkall=waking_w wkdef=waker_ctx
	[ "$WAKELIST" = 1 ] && wkall=waking_ctx wkdef=none
	floor_row abicap-all sched_waking "$wkall" min-all
	echo
	if [ "$WAKELIST" = 1 ]; then
		echo "The pinned pipe leaves CPU 1 idle, woken rarely: cpu_idle runs little (and cpu_frequency not at all in this VM); their rows are indicative. This kernel has the csd tracepoints (6.3+): by default no program runs at sched_waking, and sched_wakeup names current as the waker (fl_min_wakeup_cur: an interrupt's wakeup told apart by preempt_count, read the least way known; a wakeup queued on another CPU's wakelist takes the waker csd_queue_cpu's program kept, which the pinned pipe never does); \`-e all\` writes sched_waking's records. Without telling interrupts apart (fl_min_wakeup, waker unknown, set min-noctx): $(fmt "$(nsper fl_min_wakeup "$OUT"/floor/min-noctx.*.tsv)" %.0f) ns/run, fl_min_wakeup_cur $(fmt "$(nsper fl_min_wakeup_cur "$OUT"/floor/min.*.tsv)" %.0f) in the same rounds."
	else
		echo "The pinned pipe leaves CPU 1 idle, woken rarely: cpu_idle runs little (and cpu_frequency not at all in this VM); their rows are indicative. By default sched_waking's program keeps the waker for sched_wakeup's record and writes none, reading no clock (fl_min_waker_ctx: the waker in the wakee's task storage, an interrupt's wakeup told apart by preempt_count, read the least way known); \`-e all\` writes its records. Without telling interrupts apart (fl_min_waker, set min-noctx, the other fl_min_* loaded beside it): $(fmt "$(nsper fl_min_waker "$OUT"/floor/min-noctx.*.tsv)" %.0f) ns/run, fl_min_waker_ctx $(fmt "$(nsper fl_min_waker_ctx "$OUT"/floor/min.*.tsv)" %.0f) in the same rounds."
	fi
	echo
	for ev2 in sched_switch sched_wakeup $([ "$WAKELIST" = 1 ] || echo sched_waking) sched_waking_all; do
		eval "rt=\${FLOOR_RATIO_tp_btf_$ev2:-}"
		targets="$targets${targets:+, }${ev2/_all/ (-e all)} $(fmt "$rt")x $(verdict "$rt" "<=" 1.10)"
	done
	echo "**One wakeup's path** (sched_waking's program where one runs, then sched_wakeup's: the two read the same wakee, and whichever runs first pays for bringing its lines in, so the rows above split one cost between the two as it falls, sched_wakeup's cheap after -e all's sched_waking wrote the same fields; their sum against the floor's sum, medians): defaults $(floor_path abicap min "$wkdef"); \`-e all\` $(floor_path abicap-all min-all "$wkall")."
	echo
	FLOOR_PATH_abicap=$(floor_path abicap min "$wkdef" ratio)
	FLOOR_PATH_abicap_all=$(floor_path abicap-all min-all "$wkall" ratio)
	echo "Target (issue 36): every program (tp_btf) within 1.10x of its floor: $targets; the wakeup path $(fmt "${FLOOR_PATH_abicap:-}")x $(verdict "${FLOOR_PATH_abicap:-}" "<=" 1.10), with \`-e all\` $(fmt "${FLOOR_PATH_abicap_all:-}")x $(verdict "${FLOOR_PATH_abicap_all:-}" "<=" 1.10); ratios below 0.95 over 10,000 runs or more: $BELOW (each a measurement error or, in the two rows of the wakeup path, that path's split; none allowed)."
	echo
	floor_budget
	echo
	echo "References on sched_switch, same rounds: empty $(fmt "$(nsper fl_empty_sched_switch "$OUT"/floor/empty.*.tsv)" %.0f) ns/run, \`bpf_ktime_get_ns()\` $(fmt "$(nsper fl_clock "$OUT"/floor/clock.*.tsv)" %.0f), ring buffer reserve + submit of 80 bytes $(fmt "$(nsper fl_rb "$OUT"/floor/rb.*.tsv)" %.0f). raw_tp programs are held to the tp_btf floor: their probe reads are their variant's cost."
	echo "<!-- floor:end -->"
}
floor_readme() { # TABLE: into docs/results.md between the floor markers
	awk -v table="$1" '
		/<!-- floor:begin/ { while ((getline l < table) > 0) print l; skip = 1; next }
		/<!-- floor:end -->/ { skip = 0; next }
		!skip' docs/results.md >"$OUT/results.floor.md" && cp "$OUT/results.floor.md" docs/results.md
}

# ---- workloads: print their metric (usecs/op, or seconds) on stdout
run_workload() { # NAME
	case $1 in
	pipe-pinned) taskset -c 0 perf bench sched pipe -l "$PIPE_LOOPS" | awk '/usecs\/op/ {print $1}' ;;
	pipe) perf bench sched pipe -l "$PIPE_LOOPS" | awk '/usecs\/op/ {print $1}' ;;
	messaging) perf bench sched messaging -g 4 -l "$MSG_LOOPS" | awk '/Total time/ {print $3}' ;;
	pipe-2pairs)
		# one pinned pair per CPU; the metric is the slower pair's usecs/op
		{ taskset -c 0 perf bench sched pipe -l "$PIPE_LOOPS" &
		  taskset -c 1 perf bench sched pipe -l "$PIPE_LOOPS"; wait; } |
			awk '/usecs\/op/ {if ($1 > m) m = $1} END {print m}'
		;;
	esac
}

median() { sort -g | awk '{v[NR] = $1} END {if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print "nan"}'; }
col() { cat "$@" 2>/dev/null | median; }
fmt() { awk -v v="$1" -v f="${2:-%.2f}" 'BEGIN {if (v == "nan" || v == "") print "-"; else printf f "\n", v}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "nan" || b == "nan" || a == "" || b == "" || b == 0) print "nan"; else printf "%.3f\n", a / b}'; }
verdict() { # VALUE OP LIMIT
	awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
		if (v == "nan" || v == "") {print "n/a"; exit}
		ok = (op == "<=") ? v <= l : (op == ">=") ? v >= l : v < l
		print ok ? "pass" : "FAIL" }'
}

SETUPS="none floor record json"
[ "$HAVE_SERVE" = 1 ] && SETUPS="$SETUPS serve"
SETUPS="$SETUPS perf"
[ "$HAVE_BPFTRACE" = 1 ] && SETUPS="$SETUPS bt-printf bt-count"
[ "$HAVE_RUNQ" = 1 ] && SETUPS="$SETUPS runqlat runqslower"
WORKLOADS=${BENCH_WORKLOADS:-pipe-pinned pipe messaging}
[ -n "${BENCH_SETUPS:-}" ] && SETUPS="none $BENCH_SETUPS"
VARIANTS="sw_full sw_noquery sw_nocount sw_nocomm sw_small sw_rbonly sw_fields sw_ktime sw_lean sw_lean32 sw_batch"
WAKING_VARIANTS="wk_lru wk_tstore wk_nomap"
WAKING_OBJ=$ROOT/build/tests/bench/waking_cost.bpf.o

measure() {
	local r s w v tag m t0 t1
	log "$ROUNDS rounds; setups: $SETUPS; output in $OUT"
	log "$(uname -r), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
	for ((r = 1; r <= ROUNDS; r++)); do
		log "round $r/$ROUNDS"
		# 1. BPF cost: abicap's programs while it records, empty beside them
		start_tracer record "cost/abicap.$r" || die "abicap record did not start: $(cat "$OUT/cost/abicap.$r.err")"
		"$BPFSTATS" -p "$TRACER_PID" -l "$EMPTY_OBJ" -w "$OUT/cost/abicap.$r.tsv" -- \
			taskset -c 0 perf bench sched pipe -l "$COST_LOOPS" >/dev/null
		stop_tracer
		for v in $VARIANTS; do
			"$BPFSTATS" -l "$COST_OBJ:$v" -l "$EMPTY_OBJ:empty_sched_switch" \
				-w "$OUT/cost/$v.$r.tsv" -- \
				taskset -c 0 perf bench sched pipe -l "$COST_LOOPS" >/dev/null
		done
		for v in $WAKING_VARIANTS; do
			"$BPFSTATS" -l "$WAKING_OBJ:$v" -l "$EMPTY_OBJ:empty_sched_waking" \
				-w "$OUT/cost/$v.$r.tsv" -- \
				taskset -c 0 perf bench sched pipe -l "$COST_LOOPS" >/dev/null
		done
		floor_round "$r"
		# 2. slowdown, interleaved, every traced run bracketed by
		# untraced ones (this host's speed drifts from minute to
		# minute); 4. bytes and CPU time
		for w in $WORKLOADS; do
			before=
			for s in $SETUPS; do
				tag=slow/$w.$s.$r
				if [ "$s" = none ]; then
					before=$(run_workload "$w")
					echo "$before" >"$OUT/$tag.metric"
					continue
				fi
				if ! start_tracer "$s" "$tag"; then
					log "$s did not start for $w (see $OUT/$tag.err)"
					stop_tracer
					continue
				fi
				m=$(run_workload "$w")
				stop_tracer
				echo "$m" >"$OUT/$tag.metric"
				# the untraced run after it, the next one's before
				after=$(run_workload "$w")
				echo "$after" >>"$OUT/slow/$w.none.$r.metric"
				echo "$before $m $after" >"$OUT/$tag.bracket"
				before=$after
				case $s in record | json | serve)
					summary_counts "$OUT/$tag.err" >"$OUT/$tag.counts" ;;
				esac
				[ "$s" = record ] && stat -c %s "$OUT/$tag.abicap" >"$OUT/$tag.bytes"
				if [ "$s" = perf ]; then
					stat -c %s "$OUT/$tag.perf.data" >"$OUT/$tag.bytes"
					perf report -i "$OUT/$tag.perf.data" --stats 2>/dev/null |
						awk '/SAMPLE events:/ {print $3; exit}' >"$OUT/$tag.events"
					rm -f "$OUT/$tag.perf.data"
				fi
				rm -f "$OUT/$tag.abicap" # its size is kept
			done
		done
	done
	# 3. lossless: 3 runs of each at full speed, abicap record
	for w in pipe-pinned pipe-2pairs; do
		for r in 1 2 3; do
			tag=loss/$w.$r
			start_tracer record "$tag" || die "abicap record did not start"
			t0=$(date +%s.%N)
			run_workload "$w" >"$OUT/$tag.metric"
			t1=$(date +%s.%N)
			stop_tracer
			rm -f "$OUT/$tag.abicap"
			summary_counts "$OUT/$tag.err" >"$OUT/$tag.counts"
			echo "$t0 $t1" >"$OUT/$tag.window"
		done
	done
	decode_capture
}

# the capture the decode reads: the pinned pipe's own events (record --
# COMMAND follows it), about 4.1 M in full mode whatever else the shared
# machine runs (recorded system-wide it held 4.3 M one day, 8.1 M another)
decode_capture() {
	"$ABICAP" record -o "$OUT/decode/cap.abicap" --force -- \
		taskset -c 0 perf bench sched pipe -l "$DECODE_LOOPS" \
		>/dev/null 2>"$OUT/decode/cap.err" || die "abicap record failed: $(tail -3 "$OUT/decode/cap.err")"
	summary_counts "$OUT/decode/cap.err" >"$OUT/decode/cap.counts"
}

# 5. decode: no kernel in the loop, no lock. One core (CPU 1); the rate is
# taken from the process's CPU time (user + sys), which a busy machine
# disturbs less than the wall time (kept too).
decode() {
	local cap=$OUT/decode/cap.abicap r c
	[ -f "$cap" ] || return 0
	for ((r = 0; r <= ROUNDS; r++)); do # round 0 warms the page cache
		for c in export report; do
			if [ "$c" = export ]; then
				set -- export "$cap" --perfetto "$OUT/decode/x.pftrace" --force
			else
				set -- report "$cap"
			fi
			/usr/bin/time -f "%U %S %e" -o "$OUT/decode/$c.$r.time" \
				taskset -c 1 "$ABICAP" "$@" >/dev/null 2>&1
		done
	done
	rm -f "$OUT/decode/x.pftrace" "$OUT/decode/"*.0.time
}

# 7. contention on the transport (docs/transport.md): for each round, each
# workload (one CPU writing: a pinned pipe; every CPU writing: a pinned pipe
# per CPU), untraced and then abicap record with each transport, in the same
# order; bpf_stats over abicap's programs (build/bpfstats -p) for the
# traced runs. Figures per run in DIR/WORKLOAD.SETUP.ROUND.{tsv,metric,counts}.
CONT_SETUPS="none ringbuf percpu"
cont_workload() { # 1cpu|allcpu: usecs/op (every CPU: the mean of the pipes)
	local n cpu
	n=$(nproc)
	if [ "$1" = 1cpu ]; then
		taskset -c 0 perf bench sched pipe -l "$COST_LOOPS"
	else
		for ((cpu = 0; cpu < n; cpu++)); do
			taskset -c "$cpu" perf bench sched pipe -l "$COST_LOOPS" &
		done
		wait
	fi | awk '/usecs\/op/ {s += $1; k++} END {if (k) print s / k}'
}
export -f cont_workload
contention_measure() { # DIR
	local dir=$1 r w s tag
	mkdir -p "$dir" || die "cannot create $dir"
	export COST_LOOPS
	for ((r = 1; r <= ROUNDS; r++)); do
		log "contention round $r/$ROUNDS"
		for w in 1cpu allcpu; do
			for s in $CONT_SETUPS; do
				tag=$dir/$w.$s.$r
				if [ "$s" = none ]; then
					cont_workload "$w" >"$tag.metric"
					continue
				fi
				timed "${tag#"$OUT"/}" "$ABICAP" record -o "$tag.abicap" --force \
					--transport "$s" 2>"$tag.err" ||
					die "abicap record did not start: $(cat "$tag.err")"
				wait_for "$tag.err" "abicap: recording" ||
					die "abicap record did not start: $(cat "$tag.err")"
				"$BPFSTATS" -p "$TRACER_PID" -w "$tag.tsv" -- \
					bash -c 'cont_workload "$1"' _ "$w" >"$tag.metric"
				stop_tracer
				summary_counts "$tag.err" >"$tag.counts"
				rm -f "$tag.abicap"
			done
		done
	done
}
contention_table() { # DIR: the table on stdout
	local dir=$1 w s r m base ns sw cpu
	# every abicap program together: run time / runs, per round
	allns() { for f in "$@"; do [ -f "$f" ] && awk -F'\t' '$2 == "pid" {t += $4; c += $3} END {if (c) print t / c}' "$f"; done | median; }
	swns() { for f in "$@"; do [ -f "$f" ] && awk -F'\t' '$2 == "pid" && $1 ~ /sched_switch/ {print $5}' "$f"; done | median; }
	echo "**Contention on the transport** (bpf_stats over abicap record's programs; $ROUNDS interleaved rounds, medians; one CPU writing: \`taskset -c 0 perf bench sched pipe\`; every CPU writing: one pinned pipe per CPU, usecs/op their mean; consumer: abicap's user + sys CPU per million events):"
	echo
	echo "| workload | transport | ns/event, all programs | sched_switch ns | usecs/op | vs untraced | consumer CPU s per M events | dropped (all rounds) |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
	for w in 1cpu allcpu; do
		base=$(cat "$dir/$w.none."*.metric 2>/dev/null | median)
		for s in $CONT_SETUPS; do
			m=$(cat "$dir/$w.$s."*.metric 2>/dev/null | median)
			if [ "$s" = none ]; then
				echo "| $w | untraced | - | - | $(printf %.2f "$m") | 1.00 | - | - |"
				continue
			fi
			ns=$(allns "$dir/$w.$s."*.tsv)
			sw=$(swns "$dir/$w.$s."*.tsv)
			cpu=$(for r in $(seq "$ROUNDS"); do
				f=$dir/$w.$s.$r
				[ -f "$f.time" ] && [ -s "$f.counts" ] && awk -v e="$(awk '{print $1}' "$f.counts")" \
					'e > 0 {print ($1 + $2) / e * 1e6}' "$f.time"
			done | median)
			dr=$(cat "$dir/$w.$s."*.counts 2>/dev/null | awk '{d += $3} END {print d + 0}')
			echo "| $w | $s | $(printf %.0f "$ns") | $(printf %.0f "$sw") | $(printf %.2f "$m") | $(awk -v a="$m" -v b="$base" 'BEGIN {printf "%.2f", b ? a / b : 0}') | $(printf %.2f "$cpu") | $dr |"
			eval "CONT_${w}_${s}=\$ns"
		done
	done
	echo
	echo "Added by every CPU writing at once (ns/event, all programs, every CPU minus one CPU): shared ring $(awk -v a="$CONT_allcpu_ringbuf" -v b="$CONT_1cpu_ringbuf" 'BEGIN {printf "%+.0f", a - b}'), per-CPU rings $(awk -v a="$CONT_allcpu_percpu" -v b="$CONT_1cpu_percpu" 'BEGIN {printf "%+.0f", a - b}'); per-CPU minus shared: one CPU $(awk -v a="$CONT_1cpu_percpu" -v b="$CONT_1cpu_ringbuf" 'BEGIN {printf "%+.0f", a - b}'), every CPU $(awk -v a="$CONT_allcpu_percpu" -v b="$CONT_allcpu_ringbuf" 'BEGIN {printf "%+.0f", a - b}')."
}

# ---- overload (issue 36): abicap record and perf record, each with its
# defaults but abicap's -e all: the same six events system-wide for 1 s, in turn, beside the
# same storm: two hackbench groups (perf bench sched messaging, in a loop),
# stress-ng --cpu 4 and build/pingpong; the share of the events each lost.
# abicap: its summary (dropped of seen); perf: the lost counts of its
# PERF_RECORD_LOST records against the samples it kept plus those.
OVL_EVENTS="sched:sched_switch,sched:sched_wakeup,sched:sched_waking,sched:sched_wakeup_new,power:cpu_idle,power:cpu_frequency"
overload_storm() { # start the storm; its pids in OVL_PIDS
	OVL_PIDS=""
	for _ in 1 2; do
		bash -c 'while :; do perf bench sched messaging -g 1 -l 1000 >/dev/null 2>&1; done' &
		OVL_PIDS="$OVL_PIDS $!"
	done
	stress-ng --cpu 4 --quiet >/dev/null 2>&1 &
	OVL_PIDS="$OVL_PIDS $!"
	"$ROOT/build/pingpong" 3600 >/dev/null 2>&1 &
	OVL_PIDS="$OVL_PIDS $!"
}
overload_stop() {
	local p
	for p in $OVL_PIDS; do pkill -TERM -P "$p" 2>/dev/null; kill -TERM "$p" 2>/dev/null; done
	wait 2>/dev/null
	pkill -f 'perf bench sched messaging' 2>/dev/null
	OVL_PIDS=""
}
overload_measure() { # DIR: ROUNDS rounds, abicap then perf (the order turned each round)
	local dir=$1 r t tag
	mkdir -p "$dir" || die "cannot create $dir"
	command -v stress-ng >/dev/null || die "stress-ng is not installed (scripts/setup.sh)"
	overload_storm
	sleep 5 # the storm at its height
	cut -d' ' -f1 /proc/loadavg >"$dir/load.start"
	for ((r = 1; r <= ROUNDS; r++)); do
		log "overload round $r/$ROUNDS (load $(cut -d' ' -f1 /proc/loadavg))"
		for t in $([ $((r % 2)) = 1 ] && echo abicap perf || echo perf abicap); do
			tag=$dir/$t.$r
			if [ "$t" = abicap ]; then
				"$ABICAP" record -e all -o "$tag.abicap" --force -d 1 2>"$tag.err" >/dev/null
				summary_counts "$tag.err" | awk '{print $1, $3}' >"$tag.counts"
				rm -f "$tag.abicap"
			else
				perf record -q -e "$OVL_EVENTS" -a -o "$tag.data" -- sleep 1 2>"$tag.err" >/dev/null
				kept=$(perf report -i "$tag.data" --stats 2>/dev/null | awk '/^ *SAMPLE events:/ {print $3; exit}')
				lost=$(perf report -i "$tag.data" -D 2>/dev/null | sed -n 's/.*PERF_RECORD_LOST: .*lost:\([0-9]*\).*/\1/p' | awk '{s += $1} END {print s + 0}')
				echo "$((${kept:-0} + lost)) $lost" >"$tag.counts"
				rm -f "$tag.data"
			fi
		done
	done
	cut -d' ' -f1 /proc/loadavg >"$dir/load.end"
	overload_stop
}
overload_table() { # DIR: the table on stdout
	local dir=$1 t r
	share() { awk '{if ($1 > 0) print 100 * $2 / $1}' "$@" 2>/dev/null | median; }
	echo "**Overload** (issue 36: the README's first example lost 14% and 43% in two 1-s runs here at load ~78, with no hint): abicap record -d 1 and perf record -a -- sleep 1, each with its defaults but abicap's \`-e all\` (the same six events: sched_waking's records too), in turn ($ROUNDS rounds, the order turned each round) beside two hackbench groups (\`perf bench sched messaging -g 1\` in two loops), \`stress-ng --cpu 4\` and build/pingpong; load $(cat "$dir/load.start") when the rounds began, $(cat "$dir/load.end") at their end:"
	echo
	echo "| tool | events (seen, or kept + lost) per round | lost per round | lost, median share |"
	echo "| --- | --- | --- | --- |"
	for t in abicap perf; do
		echo "| $t | $(for ((r = 1; r <= ROUNDS; r++)); do awk '{printf "%s ", $1}' "$dir/$t.$r.counts" 2>/dev/null; done) | $(for ((r = 1; r <= ROUNDS; r++)); do awk '{printf "%s ", $2}' "$dir/$t.$r.counts" 2>/dev/null; done) | $(fmt "$(share "$dir/$t".*.counts)" "%.1f%%") |"
	done
	echo
	echo "Target: abicap loses no larger a share than perf record: $(verdict "$(awk -v a="$(share "$dir"/abicap.*.counts)" -v b="$(share "$dir"/perf.*.counts)" 'BEGIN {if (a == "nan" || b == "nan") print "nan"; else print a - b}')" "<=" 0)."
}

# One root section alone (NAME: overload, contention): measured under the
# lock, its table after the conditions, into docs/results.md if asked.
run_section() { # NAME MEASURE-FUNCTION TABLE-FUNCTION
	log "waiting for /tmp/abicap-bpf.lock"
	exec 9>/tmp/abicap-bpf.lock
	flock 9
	LOAD0=$(cut -d' ' -f1 /proc/loadavg)
	"$2" "$OUT/$1"
	flock -u 9
	exec 9>&-
	{
		conditions
		echo
		"$3" "$OUT/$1"
	} >"$OUT/$1.md"
	cat "$OUT/$1.md"
	if [ "$UPDATE_README" = 1 ]; then
		into_readme "$1" "scripts/bench.sh $1 --update-readme" "$OUT/$1.md"
		log "docs/results.md updated"
	fi
	exit 0
}
[ "$OVERLOAD_ONLY" = 1 ] && run_section overload overload_measure overload_table
[ "$CONTENTION_ONLY" = 1 ] && run_section contention contention_measure contention_table

log "waiting for /tmp/abicap-bpf.lock"
exec 9>/tmp/abicap-bpf.lock
flock 9
START=$(date +%s)
LOAD0=$(cut -d' ' -f1 /proc/loadavg)
awk -v l="$LOAD0" 'BEGIN {exit !(l > 1)}' &&
	log "warning: load $LOAD0 at the start (above 1): the tables will say the figures are not quiet ones"
if [ "$FLOOR_ONLY" = 1 ]; then
	log "floor: $ROUNDS rounds; $(uname -r), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
	for ((r = 1; r <= ROUNDS; r++)); do
		log "floor round $r/$ROUNDS"
		floor_round "$r"
	done
elif [ "$DECODE_ONLY" = 1 ]; then
	decode_capture
else
	measure
fi
flock -u 9
exec 9>&-
log "measured in $(($(date +%s) - START)) s; lock released"
if [ "$FLOOR_ONLY" = 0 ]; then
	decode
fi
if [ "$FLOOR_ONLY" = 0 ] && [ "$DECODE_ONLY" = 0 ]; then
	crafted "$OUT/crafted" >"$OUT/crafted.md"
fi

# ---- the table
nsper() { # NAME FILES...: median ns/run of program NAME
	local name=$1
	shift
	awk -F'\t' -v n="$name" '$1 == n {print $5}' "$@" 2>/dev/null | median
}
variant_table() { # TITLE EMPTY_PROG VARIANT... (the first is the base)
	local title=$1 empty=$2 base=$3 v a e full
	shift 2
	echo "$title"
	echo
	echo "| variant | ns/event | minus empty | vs $base |"
	echo "| --- | --- | --- | --- |"
	full=$(nsper "$base" "$OUT"/cost/"$base".*.tsv)
	for v in "$@"; do
		a=$(nsper "$v" "$OUT"/cost/"$v".*.tsv)
		e=$(nsper "$empty" "$OUT"/cost/"$v".*.tsv)
		echo "| $v | $(fmt "$a" %.0f) | $(fmt "$(awk -v a="$a" -v e="$e" 'BEGIN {print a - e}')" %.0f) | $(fmt "$(awk -v a="$a" -v f="$full" 'BEGIN {print a - f}')" %+.0f) |"
	done
	echo
}
dec_rate() { # export|report WHICH(cpu|wall): median M events/s (nrec set)
	for f in "$OUT/decode/$1".*.time; do
		[ -f "$f" ] && tail -1 "$f" | awk -v n="${nrec:-0}" -v w="$2" '{t = (w == "cpu") ? $1 + $2 : $3; if (t > 0 && n > 0) print n / t / 1e6}'
	done | median
}
decode_line() { # the table's decode line
	echo "**Decode** (measured $(date -u +%F)) of a ${nrec:-?}-event capture of the pinned pipe on one core, no kernel in the loop (events / CPU time; by wall time in brackets): \`abicap export --perfetto\` $(fmt "$(dec_rate export cpu)") M events/s ($(fmt "$(dec_rate export wall)")), \`abicap report\` $(fmt "$(dec_rate report cpu)") M events/s ($(fmt "$(dec_rate report wall)"))."
}
if [ "$DECODE_ONLY" = 1 ]; then
	nrec=$(awk '{print $2}' "$OUT/decode/cap.counts" 2>/dev/null)
	decode_line | tee "$OUT/decode.md"
	if [ "$UPDATE_README" = 1 ]; then
		# the decode line and its target row, nothing else
		line=$(cat "$OUT/decode.md")
		r=$(fmt "$(dec_rate export cpu)")
		awk -v line="$line" -v r="$r" -v v="$(verdict "$(dec_rate export cpu)" ">=" 5)" '
			/^\*\*Decode\*\* / { print line; next }
			/^\| decode >= 5 M events\/s \(export --perfetto\) \|/ { print "| decode >= 5 M events/s (export --perfetto) | " r " M/s | " v " |"; next }
			{ print }' docs/results.md >"$OUT/results.decode.md" && cp "$OUT/results.decode.md" docs/results.md
		log "docs/results.md updated (decode line)"
	fi
	exit 0
fi
if [ "$FLOOR_ONLY" = 1 ]; then
	{
		floor_table
	} >"$OUT/floor.md"
	cat "$OUT/floor.md"
	if [ "$UPDATE_README" = 1 ]; then
		sed -n '/<!-- floor:begin/,$p' "$OUT/floor.md" >"$OUT/floor.table.md"
		floor_readme "$OUT/floor.table.md"
		log "docs/results.md updated (floor table)"
	fi
	exit 0
fi
TABLE=$OUT/table.md
{
	echo "$(conditions)$([ "$QUICK" = 1 ] && echo " Quick mode (indicative only).") Medians."
	echo
	echo "**BPF cost per event** (bpf_stats run_time_ns/run_cnt, \`taskset -c 0 perf bench sched pipe\`, abicap record running; bpf_stats itself adds ~20 ns):"
	echo
	echo "| program | ns/event | empty program, same tracepoint | ratio |"
	echo "| --- | --- | --- | --- |"
	for p in sched_switch sched_wakeup sched_waking; do
		# the variant that ran: preempt_count by a plain load (x86, JIT,
		# 6.2+), task storage (6.0+), or neither
		for n in tp_btf_${p}_ts_pc tp_btf_${p}_ts tp_btf_$p; do
			a=$(nsper "$n" "$OUT"/cost/abicap.*.tsv)
			[ "$a" != nan ] && break
		done
		e=$(nsper "empty_$p" "$OUT"/cost/abicap.*.tsv)
		echo "| $n | $(fmt "$a" %.0f) | $(fmt "$e" %.0f) | $(fmt "$(ratio "$a" "$e")") |"
		eval "COST_$p=\$a EMPTY_$p=\$e"
	done
	echo
	variant_table "sched_switch program variants (tests/bench/switch_cost.bpf.c, each loaded alone beside the empty program):" \
		empty_sched_switch $VARIANTS
	variant_table "sched_waking program variants (tests/bench/waking_cost.bpf.c: where the waker is kept for sched_wakeup):" \
		empty_sched_waking $WAKING_VARIANTS
	floor_table
	echo
	echo "**Workload slowdown** (each traced run against the mean of the untraced runs just before and after it, the median of the $ROUNDS rounds' ratios; in brackets the median of the traced runs; untraced: the median of all its runs; pipe: usecs/op, messaging: seconds; tracer output in $OUT):"
	echo
	hdr="| setup |" sep="| --- |"
	for w in $WORKLOADS; do hdr="$hdr $w |"; sep="$sep --- |"; done
	echo "$hdr consumer CPU s per M events (pipe-pinned) |"
	echo "$sep --- |"
	for s in $SETUPS; do
		line="| $s |"
		for w in $WORKLOADS; do
			m=$(col "$OUT/slow/$w.$s".*.metric)
			# each round's run against the mean of the untraced
			# runs just before and after it; the median of those
			rt=$(cat "$OUT/slow/$w.$s".*.bracket 2>/dev/null |
				awk '$1 + $3 > 0 {printf "%.6f\n", 2 * $2 / ($1 + $3)}' | median)
			eval "RATIO_${w//-/_}_${s//-/_}=\$rt"
			if [ "$s" = none ]; then
				line="$line $(fmt "$m" %.3g) |"
			else
				line="$line $(fmt "$rt") ($(fmt "$m" %.3g)) |"
			fi
		done
		cpu=-
		if [ "$s" != none ]; then
			# CPU seconds / events, events from abicap's own counts or perf's,
			# else those of the record runs of the same rounds
			cpu=$(for r in $(seq "$ROUNDS"); do
				f=$OUT/slow/pipe-pinned.$s.$r
				ev=$(awk '{print $1}' "$f.counts" 2>/dev/null)
				[ -n "$ev" ] || ev=$(cat "$f.events" 2>/dev/null)
				[ -n "$ev" ] || ev=$(awk '{print $1}' "$OUT/slow/pipe-pinned.record.$r.counts" 2>/dev/null)
				[ -f "$f.time" ] && [ -n "$ev" ] && tail -1 "$f.time" | awk -v e="$ev" 'e > 0 {print ($1 + $2) / e * 1e6}'
			done | median)
			cpu=$(fmt "$cpu")
		fi
		echo "$line $cpu |"
	done
	echo
	echo "**Loss** (abicap record at full speed, 3 runs each; pass = dropped 0 and received = seen in every run):"
	echo
	echo "| workload | events/s | seen (last run) | received | dropped | runs lossless |"
	echo "| --- | --- | --- | --- | --- | --- |"
	best=0
	for w in pipe-pinned pipe-2pairs; do
		ok=0 rates="" last=""
		for r in 1 2 3; do
			f=$OUT/loss/$w.$r
			read -r se re dr <"$f.counts" 2>/dev/null || continue
			read -r t0 t1 <"$f.window"
			rates="$rates $(awk -v e="$se" -v a="$t0" -v b="$t1" 'BEGIN {print e / (b - a)}')"
			[ "$dr" = 0 ] && [ "$se" = "$re" ] && ok=$((ok + 1))
			last="$se | $re | $dr"
		done
		rate=$(tr ' ' '\n' <<<"$rates" | grep . | median)
		echo "| $w | $(fmt "$rate" %.0f) | ${last:-- | - | -} | $ok of 3 |"
		eval "LOSS_${w//-/_}=\$ok"
		[ "$ok" = 3 ] && best=$(awk -v a="$best" -v b="$rate" 'BEGIN {print (b > a) ? b : a}')
	done
	echo
	echo "Highest rate lossless in 3 of 3 runs: $(fmt "$best" %.0f) events/s (the fastest of these workloads that passed)."
	echo
	bpe=$(for r in $(seq "$ROUNDS"); do
		f=$OUT/slow/pipe-pinned.record.$r
		[ -f "$f.bytes" ] && awk -v b="$(cat "$f.bytes")" '{if ($2 > 0) print b / $2}' "$f.counts"
	done | median)
	pbpe=$(for r in $(seq "$ROUNDS"); do
		f=$OUT/slow/pipe-pinned.perf.$r
		[ -s "$f.events" ] && awk -v b="$(cat "$f.bytes")" '{if ($1 > 0) print b / $1}' "$f.events"
	done | median)
	nrec=$(awk '{print $2}' "$OUT/decode/cap.counts" 2>/dev/null)
	exp_rate=$(dec_rate export cpu)
	echo "**Capture size**: $(fmt "$bpe") bytes/event in the capture file (pinned pipe), perf.data $(fmt "$pbpe" %.0f) bytes/event in the same rounds."
	echo
	decode_line
	echo
	echo "**Targets**:"
	echo
	echo "| target | measured | result |"
	echo "| --- | --- | --- |"
	r=$(ratio "$COST_sched_switch" "$EMPTY_sched_switch")
	echo "| sched_switch program <= 1.5x the empty program | $(fmt "$r")x | $(verdict "$r" "<=" 1.5) |"
	echo "| sched_switch program <= 1.2x its floor (the same record, nothing else) | $(fmt "${FLOOR_RATIO_tp_btf_sched_switch:-}")x | $(verdict "${FLOOR_RATIO_tp_btf_sched_switch:-}" "<=" 1.2) |"
	echo "| pinned pipe slowdown with record <= 1.10x | $(fmt "$RATIO_pipe_pinned_record")x | $(verdict "$RATIO_pipe_pinned_record" "<=" 1.10) |"
	if [ "$HAVE_SERVE" = 1 ]; then
		echo "| pinned pipe slowdown in aggregation mode (serve) <= 1.05x | $(fmt "${RATIO_pipe_pinned_serve:-}")x | $(verdict "${RATIO_pipe_pinned_serve:-}" "<=" 1.05) |"
	else
		echo "| pinned pipe slowdown in aggregation mode (serve) <= 1.05x | - (this abicap has no serve) | n/a |"
	fi
	lower=$(awk -v r="$RATIO_pipe_pinned_record" -v p="${RATIO_pipe_pinned_perf:-nan}" -v b="${RATIO_pipe_pinned_bt_printf:-nan}" 'BEGIN {
		if (r == "nan" || p == "nan" || b == "nan") print "n/a"; else print (r < p && r < b) ? "pass" : "FAIL" }')
	echo "| pinned pipe: record lower than perf record and bpftrace printf | $(fmt "$RATIO_pipe_pinned_record")x vs $(fmt "${RATIO_pipe_pinned_perf:-}")x, $(fmt "${RATIO_pipe_pinned_bt_printf:-}")x | $lower |"
	echo "| issue 36: pinned pipe slowdown with record <= 1.08x | $(fmt "$RATIO_pipe_pinned_record")x | $(verdict "$RATIO_pipe_pinned_record" "<=" 1.08) |"
	added=$(awk -v r="$RATIO_pipe_pinned_record" -v p="${RATIO_pipe_pinned_perf:-nan}" 'BEGIN {
		if (r == "nan" || p == "nan" || r == "" || p == "" || p <= 1) print "nan"; else print (r - 1) / (p - 1) }')
	echo "| issue 36: record's added time <= 60% of perf record's (pinned pipe, same rounds) | $(fmt "$added" "%.2f") of it | $(verdict "$added" "<=" 0.60) |"
	# what writing the same records costs at the least: the floor's
	# programs attached (setup floor); a target below it needs fewer bytes,
	# records or clock reads, not a cheaper program
	fadded=$(awk -v f="${RATIO_pipe_pinned_floor:-nan}" -v p="${RATIO_pipe_pinned_perf:-nan}" 'BEGIN {
		if (f == "nan" || p == "nan" || p <= 1) print "nan"; else printf "%.3f", (f - 1) / (p - 1) }')
	echo "| the floor (fl_min_* attached, the same records, nothing else): pinned pipe slowdown, and its added time against perf record's | $(fmt "${RATIO_pipe_pinned_floor:-}")x, $(fmt "$fadded" "%.2f") of perf's | (reference) |"
	echo "| issue 24: pinned pipe slowdown with record <= 1.20x | $(fmt "$RATIO_pipe_pinned_record")x | $(verdict "$RATIO_pipe_pinned_record" "<=" 1.20) |"
	ahead=$(awk -v r="$RATIO_pipe_pinned_record" -v s="${RATIO_pipe_pinned_serve:-nan}" -v p="${RATIO_pipe_pinned_perf:-nan}" \
		-v b="${RATIO_pipe_pinned_bt_printf:-nan}" -v c="${RATIO_pipe_pinned_bt_count:-nan}" -v q="${RATIO_pipe_pinned_runqlat:-nan}" 'BEGIN {
		if (r == "nan" || s == "nan" || p == "nan" || b == "nan" || c == "nan" || q == "nan") print "n/a"
		else print (r < p && r < b && s < c && s < q) ? "pass" : "FAIL" }')
	echo "| issue 24: record below perf record and bpftrace printf, serve below bpftrace counting and runqlat, same rounds | record $(fmt "$RATIO_pipe_pinned_record")x vs $(fmt "${RATIO_pipe_pinned_perf:-}")x, $(fmt "${RATIO_pipe_pinned_bt_printf:-}")x; serve $(fmt "${RATIO_pipe_pinned_serve:-}")x vs $(fmt "${RATIO_pipe_pinned_bt_count:-}")x, $(fmt "${RATIO_pipe_pinned_runqlat:-}")x | $ahead |"
	echo "| zero loss at pinned pipe and two pipe pairs | ${LOSS_pipe_pinned:-0}/3, ${LOSS_pipe_2pairs:-0}/3 | $([ "${LOSS_pipe_pinned:-0}" = 3 ] && [ "${LOSS_pipe_2pairs:-0}" = 3 ] && echo pass || echo FAIL) |"
	echo "| capture file <= 24 bytes/event | $(fmt "$bpe") | $(verdict "$bpe" "<=" 24) |"
	echo "| decode >= 5 M events/s (export --perfetto) | $(fmt "$exp_rate") M/s | $(verdict "$exp_rate" ">=" 5) |"
} >"$TABLE"
cat "$TABLE"
echo
cat "$OUT/crafted.md"

if [ "$UPDATE_README" = 1 ]; then
	awk -v table="$TABLE" '
		/<!-- bench:begin/ { print "<!-- bench:begin (scripts/bench.sh --update-readme) -->"; while ((getline l < table) > 0) print l; skip = 1; next }
		/<!-- bench:end -->/ { skip = 0 }
		!skip' docs/results.md >"$OUT/results.md" && cp "$OUT/results.md" docs/results.md
	{
		echo "Measured $(date +%F) on $(uname -r), $(nproc) CPUs."
		echo
		cat "$OUT/crafted.md"
	} >"$OUT/crafted.full.md"
	crafted_readme "$OUT/crafted.full.md"
	log "docs/results.md updated"
fi
