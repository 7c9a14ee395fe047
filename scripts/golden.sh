#!/usr/bin/env bash
# scripts/golden.sh OLD_BIN NEW_BIN [DIR] (make golden OLD=...): the same
# fixed set of commands run with two abicap binaries, each from its own
# scratch directory holding the same fixtures under the same names, and
# compared byte for byte: stdout, stderr, exit code, and the files a
# command writes (Perfetto traces, contract snapshots and derived
# contracts). Only the version string is normalised (each binary's own,
# from --version, replaced by VERSION wherever it appears). Nothing here captures live events, so
# the comparison is deterministic; no capture file is written.
#
# The set (each case a line of the table below):
#  - every --help, the top-level usage, bad commands and bad flags of each
#    command (trace, record and serve only with flags they refuse);
#  - report (text, json, --by cgroup/container, -p, -c, -n, --from-waking)
#    and export --perfetto of each capture of the fuzz seed corpus
#    (tests/fuzz/corpus/fuzz_capfile, fuzz_capdamage, fuzz_perfetto) and of
#    crafted captures (build/capgen, made once, the same for both);
#  - check of the built-in and the corpus contracts against the running
#    kernel (/sys/kernel/btf/vmlinux), the corpus BTF blobs
#    (tests/fuzz/corpus/fuzz_btf) and kernels of the matrix cache
#    (~/.cache/abicap/kernels, ABICAP_KERNELS; those absent are said and
#    left out), text/json/junit, --strict; check --object on every test
#    object (build/tests/bpf/*.bpf.o) against them;
#  - diff between kernels (default events, --all, --events, json);
#  - contract show, snapshot (stdout and -o), from-object (stdout and -o);
#  - bad inputs: missing files, garbage and directories as captures and
#    BTFs, outputs refused (existing, the input itself).
# DIR (default: a temporary directory, removed unless a case differs)
# keeps old/ and new/, each with out/CASE.{out,err,rc} and its files.
# GOLDEN_CASES=REGEX runs only the cases whose whole name matches REGEX
# (grep -E; e.g. 'report-.*|diff-one').
# Exit: 0 identical, 1 a difference (each shown as a diff), 2 bad usage.
set -uo pipefail
die() { echo "golden.sh: $1" >&2; exit "${2:-2}"; }
[ $# -ge 2 ] && [ $# -le 3 ] ||
	die "usage: scripts/golden.sh OLD_BIN NEW_BIN [DIR] (make golden OLD=/path/to/abicap)"
TOP=$(cd "$(dirname "$0")/.." && pwd)
OLD=$(realpath -e "$1" 2>/dev/null) || die "$1: no such binary"
NEW=$(realpath -e "$2" 2>/dev/null) || die "$2: no such binary"
for b in "$OLD" "$NEW"; do
	[ -x "$b" ] || die "$b is not executable"
done
CAPGEN=$TOP/build/capgen
[ -x "$CAPGEN" ] || die "build/capgen is missing: make build/capgen"
ls "$TOP"/build/tests/bpf/*.bpf.o >/dev/null 2>&1 ||
	die "build/tests/bpf/*.bpf.o are missing: make build/test_kernel"
if [ $# -eq 3 ]; then
	W=$3
	[ ! -e "$W" ] || die "$W exists: name a new directory"
	mkdir -p "$W" || die "cannot create $W"
	keep=1
else
	W=$(mktemp -d /tmp/abicap-golden.XXXXXX) || die "mktemp failed"
	keep=0
fi
W=$(realpath "$W")

# the fixtures, made once: fx/ in each scratch directory is a copy
FX=$W/fx
mkdir -p "$FX/cap" "$FX/btf" "$FX/contract" "$FX/obj" "$FX/kern"
cp "$TOP"/tests/fuzz/corpus/fuzz_capfile/*.abicap "$FX/cap/"
for f in "$TOP"/tests/fuzz/corpus/fuzz_capdamage/*; do
	cp "$f" "$FX/cap/damage-$(basename "$f").abicap"
done
cp "$TOP/tests/fuzz/corpus/fuzz_perfetto/regress-no-threads.abicap" "$FX/cap/"
for k in same-ts many-pids stride-pids reverse shuffled; do
	"$CAPGEN" "$k" 2000 "$FX/cap/gen-$k.abicap" meta >/dev/null ||
		die "capgen $k failed" 1
done
"$CAPGEN" shuffled 500 "$FX/cap/gen-nometa.abicap" nometa >/dev/null ||
	die "capgen nometa failed" 1
cp "$TOP"/tests/fuzz/corpus/fuzz_btf/* "$FX/btf/"
cp "$TOP"/tests/fuzz/corpus/fuzz_contract/*.json "$FX/contract/"
cp "$TOP"/build/tests/bpf/*.bpf.o "$FX/obj/"
cp /sys/kernel/btf/vmlinux "$FX/kern/running.btf" 2>/dev/null ||
	echo "golden.sh: /sys/kernel/btf/vmlinux is absent: the running kernel is left out"
head -c 4096 /dev/urandom > "$FX/garbage"
: > "$FX/empty"
mkdir "$FX/adir"
CACHE=${ABICAP_KERNELS:-$HOME/.cache/abicap/kernels}
for pat in 'linux-image-5.10.0-*-amd64-unsigned-*' \
	'linux-image-5.10.0-*-rt-amd64-unsigned-*' \
	'linux-image-6.1.0-*-amd64-unsigned-*' \
	'linux-image-6.12*-rt-amd64*' \
	'linux-binary-6.19.14*-amd64-*' \
	'linux-binary-7.3.4*-arm64-7*' \
	'linux-binary-7.3-powerpc64le-7*'; do
	d=$(compgen -G "$CACHE/$pat/vmlinux.btf" | sort | head -1)
	if [ -n "$d" ]; then
		n=$(basename "$(dirname "$d")")
		cp "$d" "$FX/kern/${n%%-unsigned*}.btf"
	else
		echo "golden.sh: no kernel $pat in $CACHE (scripts/kernels.sh fetches them): left out"
	fi
done
KERNS=$(cd "$FX" && ls kern/*.btf | sort)
CAPS=$(cd "$FX" && ls cap/*.abicap | sort)
OBJS=$(cd "$FX" && ls obj/*.bpf.o | sort)
BTFS=$(cd "$FX" && ls btf/* | sort)
CONTRACTS=$(cd "$FX" && ls contract/*.json | sort)
first_kern=$(head -1 <<<"$KERNS")
last_kern=$(tail -1 <<<"$KERNS")

# the cases: NAME<TAB>COMMAND, run by bash in the scratch directory with
# abicap on PATH (the binary under test)
cases() {
	local c k o f e
	printf 'usage\tabicap\n'
	printf 'help\tabicap --help\n'
	printf 'help-h\tabicap -h\n'
	printf 'version\tabicap --version\n'
	printf 'version-V\tabicap -V\n'
	printf 'bad-command\tabicap nosuch\n'
	printf 'bad-option\tabicap --nosuch\n'
	for c in trace record report export check diff serve contract; do
		printf 'help-%s\tabicap %s --help\n' "$c" "$c"
		printf 'help-h-%s\tabicap %s -h\n' "$c" "$c"
		printf 'bad-flag-%s\tabicap %s --no-such-flag\n' "$c" "$c"
	done
	printf 'trace-bad-events\tabicap trace --events nosuch\n'
	printf 'trace-bad-format\tabicap trace --format xml\n'
	printf 'trace-bad-cpu\tabicap trace --cpu 99999\n'
	printf 'trace-extra-arg\tabicap trace extra\n'
	printf 'record-no-output\tabicap record\n'
	printf 'record-bad-events\tabicap record -o x.abicap --events nosuch\n'
	printf 'record-bad-duration\tabicap record -o out/r.abicap --events sched_switch --duration 0\n'
	printf 'serve-bad-port\tabicap serve --port abc\n'
	printf 'serve-bad-listen\tabicap serve --listen nohost:notaport\n'
	printf 'serve-extra-arg\tabicap serve extra\n'
	printf 'contract-none\tabicap contract\n'
	printf 'contract-bad\tabicap contract nosuch\n'
	for f in $CAPS; do
		n=$(basename "$f" .abicap)
		printf 'report-%s\tabicap report %s\n' "$n" "$f"
		printf 'report-json-%s\tabicap report %s --format json\n' "$n" "$f"
		printf 'export-%s\tabicap export %s --perfetto out/%s.pftrace\n' "$n" "$f" "$n"
	done
	for f in cap/real.abicap cap/gen-many-pids.abicap cap/gen-shuffled.abicap cap/drops.abicap; do
		n=$(basename "$f" .abicap)
		for o in '--by cgroup' '--by container' '--by task' '-n 3' '--top 1' \
			'--from-waking' '-f json --by cgroup' '-f json --by container' \
			'-f json --from-waking -n 2'; do
			printf 'report-%s-%s\tabicap report %s %s\n' "$n" "$(tr -c 'a-z0-9\n' _ <<<"$o")" "$f" "$o"
		done
		# the first tasks' pid and comm as filters
		printf 'report-%s-pid\tabicap report %s -p "$(abicap report %s -f json | jq -r ".tasks[0].tgid // 1")"\n' "$n" "$f" "$f"
		printf 'report-%s-comm\tabicap report %s -c "$(abicap report %s -f json | jq -r ".tasks[0].comm // \\"x\\"")"\n' "$n" "$f" "$f"
		printf 'report-%s-pid-none\tabicap report %s -p 999999 -f json\n' "$n" "$f"
		printf 'report-%s-comm-none\tabicap report %s -c nobody\n' "$n" "$f"
	done
	printf 'report-none\tabicap report\n'
	printf 'report-missing\tabicap report fx/nosuch.abicap\n'
	printf 'report-garbage\tabicap report fx/garbage\n'
	printf 'report-empty\tabicap report fx/empty\n'
	printf 'report-dir\tabicap report fx/adir\n'
	printf 'report-devnull\tabicap report /dev/null\n'
	printf 'report-two-files\tabicap report cap/real.abicap cap/drops.abicap\n'
	printf 'report-bad-format\tabicap report cap/real.abicap -f xml\n'
	printf 'report-bad-top\tabicap report cap/real.abicap -n 0\n'
	printf 'report-bad-top2\tabicap report cap/real.abicap -n 12x\n'
	printf 'report-bad-by\tabicap report cap/real.abicap --by nosuch\n'
	printf 'report-bad-pid\tabicap report cap/real.abicap -p -3\n'
	printf 'report-json-missing\tabicap report fx/nosuch -f json\n'
	printf 'export-none\tabicap export\n'
	printf 'export-no-out\tabicap export cap/real.abicap\n'
	printf 'export-missing\tabicap export fx/nosuch --perfetto out/m.pftrace\n'
	printf 'export-garbage\tabicap export fx/garbage --perfetto out/g.pftrace\n'
	printf 'export-exists\tcp fx/empty out/e.pftrace; abicap export cap/real.abicap --perfetto out/e.pftrace\n'
	printf 'export-force\tcp fx/empty out/f.pftrace; abicap export cap/real.abicap --perfetto out/f.pftrace --force\n'
	printf 'export-onto-input\tabicap export cap/real.abicap --perfetto cap/real.abicap --force\n'
	printf 'export-into-dir\tabicap export cap/real.abicap --perfetto fx/adir\n'
	printf 'export-symlink\tln -s ../fx/empty out/link.pftrace; abicap export cap/real.abicap --perfetto out/link.pftrace --force\n'
	for f in text json junit; do
		printf 'check-running-%s\tabicap check --format %s\n' "$f" "$f"
		printf 'check-running-strict-%s\tabicap check --strict -f %s\n' "$f" "$f"
	done
	for k in $KERNS $BTFS fx/garbage fx/empty fx/nosuch fx/adir; do
		n=$(basename "$k")
		printf 'check-%s\tabicap check --btf %s\n' "$n" "$k"
		printf 'check-json-%s\tabicap check --btf %s -f json\n' "$n" "$k"
	done
	for k in $KERNS; do
		n=$(basename "$k")
		printf 'check-junit-%s\tabicap check --btf %s -f junit --strict\n' "$n" "$k"
		for c in $CONTRACTS; do
			printf 'check-%s-%s\tabicap check --btf %s --contract %s\n' "$(basename "$c")" "$n" "$k" "$c"
		done
	done
	for c in $CONTRACTS fx/garbage fx/nosuch; do
		printf 'check-contract-json-%s\tabicap check --btf %s --contract %s -f json\n' "$(basename "$c")" "$first_kern" "$c"
	done
	printf 'check-bad-format\tabicap check -f yaml\n'
	printf 'check-extra-arg\tabicap check extra\n'
	for o in $OBJS; do
		n=$(basename "$o" .bpf.o)
		printf 'object-%s\tabicap check --object %s %s\n' "$n" "$o" "$(sed 's/^/--btf /' <<<"$KERNS" | tr '\n' ' ')"
		printf 'object-json-%s\tabicap check --object %s --btf %s --btf %s -f json\n' "$n" "$o" "$first_kern" "$last_kern"
		printf 'object-junit-%s\tabicap check --object %s --btf %s -f junit\n' "$n" "$o" "$last_kern"
		printf 'object-running-%s\tabicap check --object %s\n' "$n" "$o"
		printf 'from-object-%s\tabicap contract from-object %s\n' "$n" "$o"
		printf 'from-object-o-%s\tabicap contract from-object %s -o out/%s.contract.json\n' "$n" "$o" "$n"
	done
	printf 'object-missing\tabicap check --object fx/nosuch.o\n'
	printf 'object-garbage\tabicap check --object fx/garbage --btf %s\n' "$first_kern"
	printf 'object-not-bpf\tabicap check --object fx/btf/elf-5.10.elf\n'
	printf 'object-and-contract\tabicap check --object obj/t_kinds.bpf.o --contract contract/contract.json\n'
	printf 'from-object-missing\tabicap contract from-object fx/nosuch.o\n'
	printf 'from-object-garbage\tabicap contract from-object fx/garbage\n'
	printf 'from-object-none\tabicap contract from-object\n'
	local prev=""
	for k in $KERNS; do
		if [ -n "$prev" ]; then
			n="$(basename "$prev")-$(basename "$k")"
			printf 'diff-%s\tabicap diff %s %s\n' "$n" "$prev" "$k"
			printf 'diff-json-%s\tabicap diff %s %s -f json\n' "$n" "$prev" "$k"
			printf 'diff-all-%s\tabicap diff %s %s --all\n' "$n" "$prev" "$k"
			printf 'diff-events-%s\tabicap diff %s %s --events sched_switch,cpu_idle -f json\n' "$n" "$prev" "$k"
		fi
		prev=$k
		n=$(basename "$k")
		printf 'snapshot-%s\tabicap contract snapshot --btf %s\n' "$n" "$k"
		printf 'snapshot-o-%s\tabicap contract snapshot --btf %s -o out/%s.snap.json\n' "$n" "$k" "$n"
		printf 'snapshot-events-%s\tabicap contract snapshot --btf %s --events sched_switch\n' "$n" "$k"
		printf 'snapshot-check-%s\tabicap contract snapshot --btf %s -o out/s-%s.json && abicap check --contract out/s-%s.json --btf %s\n' "$n" "$k" "$n" "$n" "$last_kern"
	done
	printf 'diff-btfs\tabicap diff btf/raw-5.10.btf btf/raw-6x.btf\n'
	printf 'diff-btfs-all-json\tabicap diff btf/raw-5.10.btf btf/elf-6x.elf --all -f json\n'
	printf 'diff-be\tabicap diff btf/raw-6x.btf btf/raw-be.btf\n'
	printf 'diff-one\tabicap diff %s\n' "$first_kern"
	printf 'diff-missing\tabicap diff fx/nosuch %s\n' "$first_kern"
	printf 'diff-garbage\tabicap diff fx/garbage %s -f json\n' "$first_kern"
	printf 'diff-bad-events\tabicap diff %s %s --events nosuch\n' "$first_kern" "$last_kern"
	printf 'diff-events-and-all\tabicap diff %s %s --events sched_switch --all\n' "$first_kern" "$last_kern"
	printf 'contract-show\tabicap contract show\n'
	printf 'contract-show-extra\tabicap contract show extra\n'
	printf 'snapshot-running\tabicap contract snapshot\n'
	printf 'snapshot-bad-events\tabicap contract snapshot --btf %s --events nosuch\n' "$first_kern"
	printf 'snapshot-missing\tabicap contract snapshot --btf fx/nosuch\n'
	printf 'snapshot-garbage\tabicap contract snapshot --btf fx/garbage\n'
	printf 'snapshot-exists\tcp fx/empty out/x.json; abicap contract snapshot --btf %s -o out/x.json\n' "$first_kern"
	printf 'snapshot-force\tcp fx/empty out/y.json; abicap contract snapshot --btf %s -o out/y.json --force\n' "$first_kern"
	printf 'snapshot-onto-input\tabicap contract snapshot --btf %s -o %s --force\n' "$first_kern" "$first_kern"
}

# run BIN SIDE: every case with BIN, in $W/SIDE
run() {
	local bin=$1 side=$2 d=$W/$2 name cmd ver
	mkdir -p "$d/bin" "$d/out" "$d/res"
	cp -r "$FX" "$d/fx"
	# the names the cases use, relative to the scratch directory
	(cd "$d" && ln -s fx/cap cap && ln -s fx/btf btf && ln -s fx/contract contract &&
		ln -s fx/obj obj && ln -s fx/kern kern)
	ln -s "$bin" "$d/bin/abicap"
	# "abicap VERSION (record format N)"
	ver=$("$bin" --version | awk 'NR == 1 { print $2 }')
	[ -n "$ver" ] || die "$bin --version printed no version" 1
	while IFS=$'\t' read -r name cmd; do
		(cd "$d" && PATH=$d/bin:$PATH timeout 120 bash -c "$cmd" \
			> "res/$name.out" 2> "res/$name.err" < /dev/null
		echo $? > "res/$name.rc")
		# only the version string may differ
		sed -i "s|$(sed 's/[.[\*^$|]/\\&/g' <<<"$ver")|VERSION|g" \
			"$d/res/$name.out" "$d/res/$name.err"
	done < "$W/cases"
	for f in "$d"/out/*; do
		[ -f "$f" ] && [ ! -L "$f" ] &&
			sed -i "s|$(sed 's/[.[\*^$|]/\\&/g' <<<"$ver")|VERSION|g" "$f"
	done
	echo "golden.sh: $(wc -l < "$W/cases") cases run with $bin ($side)"
}

cases | grep -E -- "^(${GOLDEN_CASES:-.*})"$'\t' > "$W/cases" ||
	die "no case name matches GOLDEN_CASES '${GOLDEN_CASES:-}'"
dups=$(cut -f1 "$W/cases" | sort | uniq -d)
[ -z "$dups" ] || die "case names repeated: $dups" 1
run "$OLD" old
run "$NEW" new

rc=0
n=0
while IFS=$'\t' read -r name cmd; do
	for x in out err rc; do
		if ! cmp -s "$W/old/res/$name.$x" "$W/new/res/$name.$x"; then
			echo "DIFF $name ($x): $cmd"
			diff -u "$W/old/res/$name.$x" "$W/new/res/$name.$x" | head -20
			rc=1
		fi
	done
	n=$((n + 1))
done < "$W/cases"
if ! diff -r --no-dereference "$W/old/out" "$W/new/out" > "$W/files.diff"; then
	echo "DIFF output files:"
	head -40 "$W/files.diff"
	rc=1
fi
files=$(find "$W/new/out" -type f | wc -l)
if [ $rc -eq 0 ]; then
	echo "golden.sh: identical: $n cases (stdout, stderr, exit code) and $files output files"
	[ $keep -eq 1 ] || rm -rf "$W"
else
	echo "golden.sh: differences above; both sides kept in $W"
fi
exit $rc
