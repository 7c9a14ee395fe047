#!/usr/bin/env bash
# The kernel matrix: every Debian kernel scripts/kernels.sh fetches (5.10 to
# the newest, every flavour, seven architectures) checked offline, the amd64
# and arm64 ones among them booted, plus the running kernel.
#
#   scripts/vmtest.sh [--ci] [--only ID[,ID]] [--no-boot] [--update-readme]
#                     [--timeout SECS]
#
#   --ci             CI's subset (kernels.sh --ci): every architecture offline,
#                    the oldest and newest amd64 and arm64 kernels booted, and
#                    of s390x, ppc64el and riscv64 the oldest with BTF and newest
#   --only           only these ids (LINE-FLAVOUR, and `running`)
#   --no-boot        offline checks only
#   --update-readme  rewrite the matrix tables in docs/results.md (between markers)
#
# Offline, each kernel: `abicap check` on the image as Debian ships it
# (bzImage, Image(.gz), EFI zboot, zImage, s390x, ELF) with the expected
# verdicts asserted, and on its raw BTF extracted by shell tools in
# kernels.sh (both must agree; ABICAP_MATRIX_INPUT=btf makes the raw BTF the
# checked input); a kernel without BTF must be refused as such.
# `abicap diff` between consecutive lines of each architecture's main
# flavour; every verdict that differs between architectures on one line is
# printed with its explanation (an unexplained one fails). `abicap diff
# --all` on every consecutive pair, checked change by change against an
# independent reading (scripts/oracle-matrix.sh); --update-readme also
# regenerates docs/abi-history.json (scripts/abi-history.sh, audited the
# same way) and docs/tracepoint-abi.{md,json} (scripts/tpabi.py).
# Booted: each kernel under qemu (TCG; qemu-system-x86_64, -aarch64,
# -s390x, -ppc64 or -riscv64) with an initramfs of that architecture's
# static build (build/ or build/DEBARCH/: abicap-static, pingpong, vmcheck,
# vmoracle, objload, test objects) and busybox; the guest (tests/vm/init)
# checks the contract, captures the ping-pong workload and judges it,
# matches it against tracefs event by event (TRUTH), loads the test objects
# (OBJECTS, against `check --object`'s predictions: the host's, the
# guest's own for s390x's big-endian objects), and records a capture that
# the host must read into the guest's own report and Perfetto export
# (CAPTURE ON HOST). A guest booted with the BPF JIT off (Debian's riscv64)
# must first see abicap refuse, naming the fix (JIT). Each foreign
# architecture's capgen, run under qemu-user, must write a capture that
# reads here as amd64's. The running kernel runs the same sequence on the
# host. Results:
# build/vmtest/{matrix,offline}.{txt,json} ($ABICAP_VMTEST_OUT); exit 1 if
# any kernel fails.
# Many vCPUs: one kernel (the newest amd64 generic one; ABICAP_VMTEST_MANY
# names another, ABICAP_VMTEST_SMP the counts, default 16, and 16 and 64
# with --update-readme) is booted once more with each count of vCPUs, as
# id ID-smpN (--only takes it too, and boots that count): a
# ping-pong on every CPU at once while abicap traces (per-CPU buffers, their
# merge in time order, drops), and the oracle against tracefs.
# ABICAP_VMTEST_SMP=0 leaves it out. `make vmtest` (CI's subset) boots it:
# it left CI once when 28 events differed from tracefs on a 2-CPU host
# (16 vCPUs emulated by TCG stall: a vCPU stood still up to 1 s between the
# tracefs probe and abicap's program, the matched events' largest skew);
# back on 2026-12-07 after 4 runs of 4 matched every event (17,938 to
# 48,200, none differing). Its boots panicked in the guest's kernel in 3
# of 6 with a TCG thread per vCPU (an int3 in set_next_task_fair: code the
# kernel patched while other vCPUs ran it; CI's rehearsal failed on it
# twice in a row), none of 5 with one TCG thread (thread=single), which
# also boots it faster here (45-57 s against 61-82).
# `scripts/vmtest.sh --only NEWEST-amd64-smp16` boots it alone (smp64: the
# 64-vCPU one, in `make vmtest-all`, not CI's: one TCG thread for 64 vCPUs).
# Needs root (the host run attaches BPF programs).
set -uo pipefail
export LC_ALL=C

cd "$(dirname "$0")/.."
OUT=${ABICAP_VMTEST_OUT:-build/vmtest}
TIMEOUT=300
UPDATE_README=0
ONLY=
CI_MODE=0
NO_BOOT=0
INPUT=${ABICAP_MATRIX_INPUT:-image}
while [ $# -gt 0 ]; do
	case $1 in
	--update-readme) UPDATE_README=1 ;;
	--only) ONLY=$2; shift ;;
	--ci) CI_MODE=1 ;;
	--no-boot) NO_BOOT=1 ;;
	--timeout) TIMEOUT=$2; shift ;;
	-h|--help) sed -n '2,53p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "vmtest.sh: error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
case $INPUT in btf|image) ;; *)
	echo "vmtest.sh: error: ABICAP_MATRIX_INPUT must be btf or image, not '$INPUT'" >&2; exit 2 ;;
esac
need_files() {
	local f
	for f in "$@"; do
		[ -e "$f" ] || { echo "vmtest.sh: error: $f missing: run make vmtest (it builds build/ and build/arm64/)" >&2; exit 2; }
	done
}
need_files build/abicap build/abicap-static build/pingpong build/vmcheck build/vmoracle build/objload
for t in qemu-system-x86_64 cpio jq file readelf; do
	command -v "$t" >/dev/null || { echo "vmtest.sh: error: $t missing: run scripts/setup.sh" >&2; exit 2; }
done
BUSYBOX=$(command -v busybox)
if [ -z "$BUSYBOX" ] || ! file -L "$BUSYBOX" | grep -q "statically linked"; then
	echo "vmtest.sh: error: a static busybox is needed (apt-get install busybox-static)" >&2
	exit 2
fi
rm -rf "$OUT" && mkdir -p "$OUT"

echo "vmtest: fetching kernels (scripts/kernels.sh$([ $CI_MODE -eq 1 ] && echo " --ci"))"
kargs=()
[ $CI_MODE -eq 1 ] && kargs+=(--ci)
scripts/kernels.sh "${kargs[@]}" > "$OUT/manifest.tsv" 2> "$OUT/kernels.log"
krc=$?
cat "$OUT/kernels.log" >&2
if [ $krc -ne 0 ] || [ ! -s "$OUT/manifest.tsv" ]; then
	echo "vmtest.sh: error: scripts/kernels.sh failed (exit $krc; see $OUT/kernels.log)" >&2
	exit 2
fi

# --- which kernels boot ---------------------------------------------------------
# amd64: every line's generic kernel, and the cloud and rt flavours of the
# three stable lines; arm64: 5.10, 6.1, 6.12 and the newest line. CI: the
# oldest and newest of each of the two architectures.
newest() { awk -F'\t' -v a="$1" -v f="$2" '$9 == a && $3 == f && $8 == "ok" { print $2 }' \
	"$OUT/manifest.tsv" | sort -V | tail -1; }
oldest() { awk -F'\t' -v a="$1" -v f="$2" '$9 == a && $3 == f && $8 == "ok" { print $2 }' \
	"$OUT/manifest.tsv" | sort -V | head -1; }
# s390x (big-endian), ppc64el and riscv64: the oldest line with BTF and the
# newest, booted in CI too (each boot takes under a minute here)
OTHER_IDS=
for af in s390x:s390x ppc64el:powerpc64le riscv64:riscv64; do
	o=$(oldest "${af%%:*}" "${af#*:}") n=$(newest "${af%%:*}" "${af#*:}")
	[ -n "$o" ] && OTHER_IDS+=",$o-${af#*:}"
	[ -n "$n" ] && [ "$n" != "$o" ] && OTHER_IDS+=",$n-${af#*:}"
done
if [ $CI_MODE -eq 1 ]; then
	BOOT_IDS="5.10-amd64,$(newest amd64 amd64)-amd64,5.10-arm64,$(newest arm64 arm64)-arm64$OTHER_IDS"
else
	BOOT_IDS=$(awk -F'\t' '$9 == "amd64" && ($3 == "amd64" || $2 ~ /^(5\.10|6\.1|6\.12)$/) { print $1 }' \
		"$OUT/manifest.tsv" | paste -sd,)
	BOOT_IDS+=",5.10-arm64,6.1-arm64,6.12-arm64,$(newest arm64 arm64)-arm64$OTHER_IDS"
	# and 6.12, the line Debian 13 ships, where it is neither end
	for f in s390x powerpc64le riscv64; do
		grep -qP "^6\.12-$f\t" "$OUT/manifest.tsv" && [[ ,$BOOT_IDS, != *,6.12-$f,* ]] &&
			BOOT_IDS+=",6.12-$f"
	done
fi
[ $NO_BOOT -eq 1 ] && BOOT_IDS=
# --only: the builds the selected boots need, no more
if [ -n "$ONLY" ]; then
	BOOT_IDS=$(tr ',' '\n' <<<"$BOOT_IDS" | while read -r b; do [[ ",$ONLY," == *",$b,"* ]] && echo "$b"; done | paste -sd,)
fi
# The Debian architectures of the kernels booted, and what each needs:
# its build (make ARCH=...: build/DEBARCH/), its qemu.
BOOT_ARCHES=$(awk -F'\t' -v ids=",$BOOT_IDS," 'index(ids, "," $1 ",") { print $9 }' \
	"$OUT/manifest.tsv" | sort -u | paste -sd' ')
bdir_of() { if [ "$1" = amd64 ]; then echo build; else echo "build/$1"; fi; }
qemu_of() {
	case $1 in
	amd64) echo qemu-system-x86_64 ;; arm64) echo qemu-system-aarch64 ;;
	s390x) echo qemu-system-s390x ;; ppc64el) echo qemu-system-ppc64 ;;
	riscv64) echo qemu-system-riscv64 ;;
	esac
}
for a in $BOOT_ARCHES; do
	[ "$a" = amd64 ] && continue
	b=$(bdir_of "$a")
	need_files "$b/abicap-static" "$b/pingpong" "$b/vmcheck" "$b/vmoracle" "$b/objload" "$b/abicap.bpf.o"
	command -v "$(qemu_of "$a")" >/dev/null ||
		{ echo "vmtest.sh: error: $(qemu_of "$a") missing: run scripts/setup.sh" >&2; exit 2; }
done

# --- the initramfs of each architecture --------------------------------------------
# build dir, busybox
make_initramfs() {
	local arch=$1 bdir=$2 busybox=$3 root=$OUT/initramfs-$1
	mkdir -p "$root"/{bin,dev,proc,sys,tmp,objs}
	install -m 755 "$busybox" "$root/bin/busybox"
	install -m 755 "$bdir/abicap-static" "$root/abicap"
	install -m 755 "$bdir/pingpong" "$bdir/vmcheck" "$bdir/vmoracle" "$bdir/objload" "$root/"
	cp "$bdir"/tests/bpf/*.bpf.o "$root/objs/"
	install -m 755 tests/vm/init "$root/init"
	mknod "$root/dev/console" c 5 1
	(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$OUT/initramfs-$arch.cpio.gz"
}
make_initramfs amd64 build "$BUSYBOX"
# s390x, ppc64el, riscv64: Debian's busybox-static of that architecture,
# unpacked into the build's sysroot (scripts/sysroot.sh)
for a in s390x ppc64el riscv64; do
	[[ " $BOOT_ARCHES " == *" $a "* ]] || continue
	bb=build/sysroot/$a/bin/busybox
	[ -x "$bb" ] || bb=build/sysroot/$a/usr/bin/busybox
	need_files "$bb"
	make_initramfs "$a" "build/$a" "$bb"
done
if [[ " $BOOT_ARCHES " == *" arm64 "* ]]; then
	# Debian's busybox-static for arm64, unpacked (it cannot be installed
	# beside the amd64 one); cached beside the kernels
	bbdir=${ABICAP_KERNEL_CACHE:-$HOME/.cache/abicap/kernels}/busybox-arm64
	if [ ! -x "$bbdir/busybox" ]; then
		mkdir -p "$bbdir"
		if ! (cd "$bbdir" && apt-get -qq download busybox-static:arm64 >download.log 2>&1) ||
			! dpkg-deb --fsys-tarfile "$bbdir"/busybox-static_*_arm64.deb |
				tar -xO ./bin/busybox > "$bbdir/busybox.part"; then
			echo "vmtest.sh: error: cannot fetch busybox-static:arm64 (see $bbdir/download.log; scripts/setup.sh adds the arm64 architecture)" >&2
			exit 2
		fi
		chmod 755 "$bbdir/busybox.part" && mv "$bbdir/busybox.part" "$bbdir/busybox"
		rm -f "$bbdir"/*.deb
	fi
	make_initramfs arm64 build/arm64 "$bbdir/busybox"
fi

# --- expected offline verdicts ----------------------------------------------------
# Non-ok items per kernel (scope/item, sorted). 5.10 predates
# task_struct.__state (5.14), thread_info.cpu (5.16) and the prev_state
# argument (5.18) and the optional csd tracepoints (6.3: sched_waking's
# program keeps the wakers there), and its sched_wakeup record still has `success`; Debian's
# 5.10-rt also has a ring buffer whose spinlock_t is a sleeping rt_mutex.
# Every other kernel, of every architecture, keeps the whole contract: where
# a type differs by architecture, the verdict must say what libbpf and the
# verifier do (see explain_difference).
expected_nonok() { # id line flavour arch
	local v510="csd_function_entry/tracepoint,csd_function_exit/tracepoint,csd_queue_cpu/tracepoint,sched_switch/arg 4 prev_state,sched_wakeup/record.success,sched_wakeup/record.target_cpu,task_struct/__state,task_struct/thread_info.cpu"
	case $2-$3 in
	5.10-rt-*) echo "bpf_ringbuf/spinlock,$v510" ;;
	5.10-*) echo "$v510" ;;
	*) echo "" ;;
	esac
}

# Why one item's verdict may differ between architectures on one line;
# prints nothing for a difference nobody explained (a failure).
explain_difference() { # item (scope/item) arches-with-non-ok
	case $1 in
	task_struct/thread_info.cpu)
		echo "thread_info.cpu is per architecture (arch/*/include/asm/thread_info.h): u32 on x86 and arm64, int on riscv64, and absent where thread_info is not in task_struct; a CO-RE read of a same-size integer of either signedness works" ;;
	bpf_ringbuf/spinlock)
		echo "bpf_ringbuf's lock: spinlock_t in 5.10 (a sleeping rt_mutex on PREEMPT_RT), raw_spinlock_t to 6.12, from 6.16 rqspinlock_t, the resilient queued spinlock: a typedef of struct qspinlock where the architecture has queued spinlocks (x86, arm64, riscv64), its own struct rqspinlock on ppc64el and s390x; neither sleeps, so the ring buffer serves on every one" ;;
	*) echo "" ;;
	esac
}

nonok_items() { # check JSON -> sorted "scope/item" list of non-ok items
	jq -r '[.items[] | select(.verdict != "ok") | .scope + "/" + .item] | sort | join(",")' "$1"
}

# The image as Debian ships it, in a word
image_kind() {
	local d
	d=$(file -b "$1")
	case $d in
	*bzImage*) echo bzImage ;;
	*"ARM64 boot executable Image"*) echo Image ;;
	*PE32+*|*"MS-DOS executable"*) echo "EFI zboot" ;;
	gzip*) echo Image.gz ;;
	*zImage*) echo zImage ;;
	*S390*) echo "s390 image" ;;
	*RISC-V*|*riscv*) echo "RISC-V Image" ;;
	ELF*) echo "ELF vmlinux" ;;
	*) echo "${d%%,*}" ;;
	esac
}

selected() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }
booted() { [[ ",$BOOT_IDS," == *",$1,"* ]]; }

# abicap check --object's prediction for every test object on one kernel,
# "NAME loads|rejected" lines, sorted.
predict_objects() {
	local btf=$1 bdir=$2 o
	for o in "$bdir"/tests/bpf/*.bpf.o; do
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
	local btf=$1 check=$2 obj=$3 four pred4 pred3
	four=$(jq -r '[.items[] | select(.scope == "sched_switch" and .item == "arg 4 prev_state")][0].verdict == "ok"' "$check")
	pred=$(build/abicap check --object "$obj" --btf "$btf" --format json 2>/dev/null)
	pred4=$(jq -r '.kernels[0].programs[] | select(.name == "tp_btf_sched_switch") | .loads' <<<"$pred")
	pred3=$(jq -r '.kernels[0].programs[] | select(.name == "tp_btf_sched_switch_3") | .loads' <<<"$pred")
	[ "$pred4" = "$four" ] && [ "$pred3" = true ]
}

# One boot of one kernel, its serial console into $log; qemu's exit status.
# SMP: the vCPUs (2 unless set; amd64 only)
SMP=2
boot_once() {
	local arch=$1 vmlinuz=$2 log=$3 mem=768
	local accel=tcg
	# many vCPUs: one TCG thread. With a thread per vCPU the guest's
	# kernel died at boot in 3 of 6 boots here (an int3 in
	# set_next_task_fair: code the kernel patches while other vCPUs run it)
	[ "$SMP" -gt 2 ] && mem=$((768 + SMP * 64)) accel=tcg,thread=single
	case $arch in
	amd64)
		timeout --foreground "$((TIMEOUT * (SMP > 2 ? 2 + SMP / 32 : 1)))" qemu-system-x86_64 -accel "$accel" -cpu max -smp "$SMP" -m "$mem" \
			-display none -serial stdio -monitor none -no-reboot \
			-kernel "$vmlinuz" -initrd "$OUT/initramfs-amd64.cpio.gz" \
			-append "console=ttyS0 panic=-1 oops=panic quiet loglevel=3 rdinit=/init" \
			< /dev/null > "$log" 2>&1 ;;
	arm64)
		# every instruction emulated: about twice as slow as amd64 here
		timeout --foreground $((TIMEOUT * 2)) qemu-system-aarch64 -accel tcg -machine virt \
			-cpu max -smp 2 -m 1024 -display none -serial stdio -monitor none -no-reboot \
			-kernel "$vmlinuz" -initrd "$OUT/initramfs-arm64.cpio.gz" \
			-append "console=ttyAMA0 panic=-1 oops=panic quiet loglevel=3 rdinit=/init" \
			< /dev/null > "$log" 2>&1 ;;
	s390x)
		# the SCLP console; the image boots as Debian ships it
		timeout --foreground $((TIMEOUT * 2)) qemu-system-s390x -accel tcg \
			-machine s390-ccw-virtio -cpu max -smp 2 -m 1024 -display none \
			-serial stdio -monitor none -no-reboot -kernel "$vmlinuz" \
			-initrd "$OUT/initramfs-s390x.cpio.gz" \
			-append "console=ttysclp0 panic=-1 oops=panic quiet loglevel=3 rdinit=/init" \
			< /dev/null > "$log" 2>&1 ;;
	ppc64el)
		# pseries with the spectre capabilities TCG cannot give declared
		# broken (else qemu refuses to start); the hypervisor console
		timeout --foreground $((TIMEOUT * 2)) qemu-system-ppc64 -accel tcg \
			-machine pseries,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off \
			-cpu power9 -smp 2 -m 1024 -display none -serial stdio -monitor none \
			-no-reboot -kernel "$vmlinuz" -initrd "$OUT/initramfs-ppc64el.cpio.gz" \
			-append "console=hvc0 panic=-1 oops=panic quiet loglevel=3 rdinit=/init" \
			< /dev/null > "$log" 2>&1 ;;
	riscv64)
		# OpenSBI (Debian's opensbi) starts the Image (an EFI stub, not
		# compressed); qemu 7.2 has no 'max' CPU for riscv64
		timeout --foreground $((TIMEOUT * 2)) qemu-system-riscv64 -accel tcg \
			-machine virt -smp 2 -m 1024 -display none -serial stdio -monitor none \
			-no-reboot -kernel "$vmlinuz" -initrd "$OUT/initramfs-riscv64.cpio.gz" \
			-append "console=ttyS0 panic=-1 oops=panic quiet loglevel=3 rdinit=/init" \
			< /dev/null > "$log" 2>&1 ;;
	esac
}

# One kernel's booted run: prints the ABICAP-RESULT JSON, or a failure reason.
# A boot that does not finish is tried once more (its log kept as .log.1):
# TCG emulation has hung here once in several dozen boots.
boot() {
	local id=$1 arch=$2 vmlinuz=$3 log=$OUT/$1.log rc res
	boot_once "$arch" "$vmlinuz" "$log"
	rc=$?
	if ! grep -aq '^ABICAP-DONE' "$log"; then
		mv "$log" "$log.1"
		echo "vmtest: $id: the boot did not finish (exit $rc; $log.1); trying once more" >&2
		boot_once "$arch" "$vmlinuz" "$log"
		rc=$?
	fi
	res=$(grep -a '^ABICAP-RESULT ' "$log" | tail -1 | cut -d' ' -f2-)
	if [ -n "$res" ] && grep -aq '^ABICAP-DONE' "$log"; then
		echo "$res"
	elif [ $rc -eq 124 ]; then
		echo "timed out, twice (logs: $log.1, $log; last object tried: $(grep -a '^ABICAP-OBJ-TRY' "$log" | tail -1 | cut -d' ' -f2 | tr -d '\r'))"
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
	# -b 256: on a host whose ping-pong outruns one thread formatting JSON
	# (1 M events/s here, 650 k formatted), the buffer holds the 2 s and
	# the rest is drained after; nothing the oracle compares is lost
	build/abicap trace --format json -b 256 > "$d/trace.json" 2> "$d/trace.err" &
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

# jq: why a booted run failed ("" if it passed), from the guest's result and
# the oracle's
BOOT_REASON='def boot_reason($b; $t):
	if ($b.pass | not) then ($b.failures | join("; "))
	elif $t == null then "no oracle result"
	elif $t.error then "oracle: \($t.error)"
	elif $t.mismatched > 0 then "oracle: \($t.mismatched) events differ from tracefs:\($t.first | split("\n") | .[0:4] | join(" "))"
	else "" end;'

# What abicap check --object predicted in the guest (s390x: the host cannot
# read big-endian objects), same form as predict_objects.
guest_predictions() {
	grep -a '^ABICAP-PREDICT ' "$1" | tr -d '\r' | while read -r _ name json; do
		echo "$name $(jq -r 'if .kernels[0].loads then "loads" else "rejected" end' <<<"$json" 2>/dev/null)"
	done | sort
}

# A file the guest printed in base64 (tests/vm/init), into $3: its size and
# sha256 as the guest gave them must hold. For a file whose bytes the guest
# did not print (its export), what $3 already holds must have them.
guest_file() { # log name out
	local size sum
	read -r _ _ size sum < <(grep -a "^ABICAP-FILE $2 " "$1" | tr -d '\r' | head -1)
	[ -n "$sum" ] || return 1
	if grep -aq "^ABICAP-B64" <(sed -n "/^ABICAP-FILE $2 /,/^ABICAP-FILE-END $2/p" "$1"); then
		awk -v f="$2" '{ sub(/\r$/, "") } $1 == "ABICAP-FILE" && $2 == f { on = 1; next }
			$1 == "ABICAP-FILE-END" { on = 0 } on && $1 == "ABICAP-B64" { print $2 }' "$1" |
			base64 -d > "$3" 2>/dev/null
	fi
	[ -f "$3" ] && [ "$(wc -c < "$3")" = "$size" ] &&
		[ "$(sha256sum < "$3" | cut -d' ' -f1)" = "$sum" ]
}

# The capture recorded in the guest, read here: report (JSON, but for the
# file's path) and export --perfetto must be what the guest made of it,
# whatever the guest's byte order. Prints why not, or nothing.
host_reads_guest_capture() { # id log
	local id=$1 log=$2 f p=$OUT/$1
	grep -aq '^ABICAP-RECORD rc=0' "$log" ||
		{ echo "record in the guest failed: $(grep -a '^ABICAP-RECORD' "$log" | tr -d '\r')"; return; }
	for f in cap.abicap cap.report.json; do
		guest_file "$log" "$f" "$p.$f" || { echo "the guest's $f did not come out whole"; return; }
	done
	if ! build/abicap report "$p.cap.abicap" --format json > "$p.host.report.json" 2> "$p.host.report.err"; then
		echo "report of the guest's capture failed here: $(head -c 200 "$p.host.report.err")"
	elif ! cmp -s <(jq -S 'del(.file)' "$p.cap.report.json") <(jq -S 'del(.file)' "$p.host.report.json"); then
		echo "report of the guest's capture differs here from the guest's: $(diff <(jq -S 'del(.file)' "$p.cap.report.json") <(jq -S 'del(.file)' "$p.host.report.json") | head -4 | tr '\n' ' ')"
	elif ! build/abicap export "$p.cap.abicap" --perfetto "$p.host.pftrace" --force 2> "$p.host.export.err"; then
		echo "export of the guest's capture failed here: $(head -c 200 "$p.host.export.err")"
	elif ! guest_file "$log" cap.pftrace "$p.host.pftrace"; then
		echo "export --perfetto of the guest's capture differs here from the guest's (size, sha256)"
	fi
}

# A guest that booted with the BPF JIT off (tests/vm/init): abicap must
# have refused, exit 1, naming the fix. Prints why not, or nothing.
jit_said() {
	local l
	l=$(grep -a '^ABICAP-JIT ' "$1" | tr -d '\r' | head -1)
	[ -z "$l" ] && return
	[[ $l == *" rc=1 "* && $l == *"bpf_jit_enable=1"* ]] ||
		echo "the guest's BPF JIT was off and abicap did not refuse naming it: ${l#ABICAP-JIT }"
}

# The oracle's line (tests/tools/vmoracle.c) from a log, as JSON ("" if none).
truth_of() { grep -a '^ABICAP-TRUTH ' "$1" 2>/dev/null | tail -1 | cut -d' ' -f2- | tr -d '\r'; }

# --- offline: one kernel -----------------------------------------------------------
# Sets: contract, nonok, reason, image_note. A kernel without BTF must be
# refused, with exit 1 (the kernel cannot do it).
offline_check() {
	local id=$1 line=$2 flavour=$3 arch=$4 dir=$5 status=$6 irc brc got want primary
	contract="-" nonok="" reason="" image_note=""
	build/abicap check --btf "$dir/vmlinuz" --format json > "$OUT/$id.check-image.json" 2> "$OUT/$id.check-image.err"
	irc=$?
	if [[ $status == "no BTF"* ]]; then
		contract="no BTF"
		if [ $irc -eq 0 ]; then
			reason="abicap check accepted a kernel built without BTF"
		elif [ $INPUT = image ] && ! grep -qiE 'no BTF|without BTF|has no \.BTF' "$OUT/$id.check-image.err"; then
			reason="abicap check does not say the kernel has no BTF: $(head -c 160 "$OUT/$id.check-image.err")"
		fi
		image_note="refused (exit $irc): $(head -1 "$OUT/$id.check-image.err" | cut -c1-160)"
		return
	fi
	build/abicap check --btf "$dir/vmlinux.btf" --format json > "$OUT/$id.check-btf.json" 2> "$OUT/$id.check-btf.err"
	brc=$?
	primary=$OUT/$id.check-btf.json
	[ $INPUT = image ] && primary=$OUT/$id.check-image.json
	if [ $irc -ne 0 ] && [ $irc -ne 1 ]; then
		image_note="image refused (exit $irc): $(head -1 "$OUT/$id.check-image.err" | cut -c1-160)"
		if [ $INPUT = image ]; then
			reason="abicap check --btf on the image exited $irc: $(head -c 200 "$OUT/$id.check-image.err")"
			return
		fi
	elif [ $brc -le 1 ] && [ "$(jq -c .summary "$OUT/$id.check-btf.json")" != "$(jq -c .summary "$OUT/$id.check-image.json")" ]; then
		reason="the image and its extracted raw BTF give different verdicts"
		return
	fi
	if [ $brc -ne 0 ] && [ $brc -ne 1 ]; then
		reason="abicap check on the raw BTF exited $brc: $(head -c 200 "$OUT/$id.check-btf.err")"
		return
	fi
	contract=$(jq -r .verdict "$primary")
	got=$(nonok_items "$primary")
	nonok=$got
	want=$(expected_nonok "$id" "$line" "$flavour" "$arch")
	if [ "$got" != "$want" ]; then
		reason="offline verdicts differ: got [$got], expected [$want]: $(jq -r '[.items[] | select(.verdict != "ok") | "\(.scope) \(.item): \(.actual) -> \(.verdict)"] | join("; ")' "$primary" | cut -c1-300)"
	fi
}

# --- each kernel -----------------------------------------------------------------
matrix_json="[]"
offline_json="[]"
pass=0
fail=0
while IFS=$'\t' read -r id line flavour pkg ver release dir status arch; do
	selected "$id" || continue
	kind="-"
	[ -s "$dir/vmlinuz" ] && kind=$(image_kind "$dir/vmlinuz")
	contract="-" nonok="" reason="" image_note=""
	if [[ $status == unavailable* ]]; then
		echo "vmtest: $arch $id: $status"
		offline_json=$(jq --arg id "$id" --arg arch "$arch" --arg line "$line" --arg flavour "$flavour" \
			--arg pkg "$pkg" --arg ver "$ver" --arg status "$status" '. + [{id: $id, arch: $arch,
			line: $line, flavour: $flavour, package: $pkg, version: $ver, release: "-", image: "-",
			status: $status, contract: "-", nonok: [], image_check: "", reason: "", pass: null}]' <<<"$offline_json")
		continue
	fi
	if [[ $status == ok || $status == "no BTF"* ]]; then
		offline_check "$id" "$line" "$flavour" "$arch" "$dir" "$status"
	else
		reason=$status
	fi
	bdir=$(bdir_of "$arch")
	if [ -z "$reason" ] && [[ $status == ok ]]; then
		# (s390x's object is big-endian: the host cannot read it)
		if [[ $arch != s390x && -f $bdir/abicap.bpf.o ]] &&
			! own_object_agrees "$dir/vmlinux.btf" "$OUT/$id.check-btf.json" "$bdir/abicap.bpf.o"; then
			reason="check --object $bdir/abicap.bpf.o disagrees with the contract's choice of sched_switch program"
		fi
	fi
	orow=$(jq -n --arg id "$id" --arg arch "$arch" --arg line "$line" --arg flavour "$flavour" \
		--arg pkg "$pkg" --arg ver "$ver" --arg release "$release" --arg kind "$kind" \
		--arg status "$status" --arg contract "$contract" --arg nonok "$nonok" \
		--arg reason "$reason" --arg image "$image_note" '
		{id: $id, arch: $arch, line: $line, flavour: $flavour, package: $pkg, version: $ver,
		 release: $release, image: $kind, status: $status, contract: $contract,
		 nonok: ($nonok | split(",") | map(select(. != ""))), image_check: $image,
		 reason: $reason, pass: ($reason == "")}')
	offline_json=$(jq --argjson r "$orow" '. + [$r]' <<<"$offline_json")
	if ! booted "$id"; then
		if jq -e .pass <<<"$orow" >/dev/null; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
		jq -r '"vmtest: \(.arch) \(.id): offline \(.contract)\(if .pass then "" else " FAIL: \(.reason)" end)"' <<<"$orow"
		continue
	fi
	echo "vmtest: $arch $id ($pkg $ver): booting"
	offline=ok objects="-" boot_res=""
	[ -n "$reason" ] && offline=FAIL
	if [[ $status == ok ]]; then
		boot_res=$(boot "$id" "$arch" "$dir/vmlinuz")
		if [ "$arch" = s390x ]; then
			guest_predictions "$OUT/$id.log" > "$OUT/$id.objects.predicted"
		else
			predict_objects "$dir/vmlinux.btf" "$bdir" > "$OUT/$id.objects.predicted"
		fi
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
	truth="" hostread="-" jit="on"
	if [[ $status == ok ]]; then
		truth=$(truth_of "$OUT/$id.log")
		why=$(host_reads_guest_capture "$id" "$OUT/$id.log")
		hostread=same
		[ -n "$why" ] && hostread=DIFFERS
		[ -z "$reason" ] && reason=$why
		why=$(jit_said "$OUT/$id.log")
		grep -aq '^ABICAP-JIT off' "$OUT/$id.log" && jit="off: refused"
		[ -z "$reason" ] && reason=$why
	fi
	row=$(jq -n --arg id "$id" --arg arch "$arch" --arg line "$line" --arg flavour "$flavour" \
		--arg pkg "$pkg" --arg ver "$ver" --arg release "$release" \
		--arg contract "$contract" --arg reason "$reason" --arg boot "$boot_res" \
		--arg offline "$offline" --arg objects "$objects" --arg truth "$truth" \
		--arg hostread "$hostread" --arg jit "$jit" "$BOOT_REASON"'
		($boot | try fromjson catch null) as $b |
		($truth | try fromjson catch null) as $t |
		{id: $id, arch: $arch, line: $line, flavour: $flavour, package: $pkg, version: $ver,
		 release: $release, contract: $contract, offline: $offline,
		 booted: $b, objects: $objects, truth: $t, host_read: $hostread, jit: $jit,
		 reason: (if $reason != "" then $reason elif $b == null then $boot
			  else boot_reason($b; $t) end)}
		| .pass = (.reason == "")')
	matrix_json=$(jq --argjson r "$row" '. + [$r]' <<<"$matrix_json")
	if jq -e .pass <<<"$row" >/dev/null; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	jq -r '"vmtest: \(.arch) \(.id): booted \(if .pass then "pass" else "FAIL: \(.reason)" end)"' <<<"$row"
done < "$OUT/manifest.tsv"

# --- many vCPUs -------------------------------------------------------------------
# ABICAP_VMTEST_SMP: the counts, blank-separated (default 16 for --ci's
# subset, "16 64" for the whole matrix, --update-readme)
if [ -n "${ABICAP_VMTEST_SMP:-}" ]; then
	MANY_SMPS=$ABICAP_VMTEST_SMP
elif [ $UPDATE_README -eq 1 ]; then
	MANY_SMPS="16 64"
else
	MANY_SMPS=16
	# --only ID-smpN boots that count too
	for id in ${ONLY//,/ }; do
		[[ $id =~ -smp([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" != 16 ] &&
			MANY_SMPS+=" ${BASH_REMATCH[1]}"
	done
fi
MANY=${ABICAP_VMTEST_MANY:-$(newest amd64 amd64)-amd64}
for MANY_SMP in $MANY_SMPS; do
	if [ $NO_BOOT -eq 0 ] && [ "$MANY_SMP" -gt 2 ] && selected "$MANY-smp$MANY_SMP"; then
		mrow=$(awk -F'\t' -v id="$MANY" '$1 == id && $8 == "ok"' "$OUT/manifest.tsv")
		if [ -z "$mrow" ]; then
			echo "vmtest: FAIL $MANY-smp$MANY_SMP: kernel $MANY not in the manifest"
			fail=$((fail + 1))
		else
			IFS=$'\t' read -r id line flavour pkg ver release dir status arch <<<"$mrow"
			id=$MANY-smp$MANY_SMP
			echo "vmtest: $arch $id ($pkg $ver, $MANY_SMP vCPUs): booting"
			t0=$(date +%s)
			SMP=$MANY_SMP
			boot_res=$(boot "$id" "$arch" "$dir/vmlinuz")
			SMP=2
			truth=$(truth_of "$OUT/$id.log")
			row=$(jq -n --arg id "$id" --arg arch "$arch" --arg line "$line" --arg flavour "$flavour-smp$MANY_SMP" \
				--arg pkg "$pkg" --arg ver "$ver" --arg release "$release" --arg boot "$boot_res" \
				--arg truth "$truth" --argjson smp "$MANY_SMP" "$BOOT_REASON"'
				($boot | try fromjson catch null) as $b |
				($truth | try fromjson catch null) as $t |
				{id: $id, arch: $arch, line: $line, flavour: $flavour, package: $pkg, version: $ver,
				 release: "\($release) (\($smp) vCPUs)", contract: ($b.contract // "-"), offline: "ok",
				 booted: $b, objects: "-", truth: $t,
				 reason: (if $b == null then $boot
					  elif ($b.cpus // 0) != $smp then "the guest has \($b.cpus // 0) CPUs, not \($smp)"
					  else boot_reason($b; $t) end)}
				| .pass = (.reason == "")')
			matrix_json=$(jq --argjson r "$row" '. + [$r]' <<<"$matrix_json")
			if jq -e .pass <<<"$row" >/dev/null; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
			jq -r --arg s "$(($(date +%s) - t0))" '"vmtest: \(.arch) \(.id): booted \(if .pass then "pass" else "FAIL: \(.reason)" end) (\($s) s)"' <<<"$row"
		fi
	fi
done

# --- one capture written by every architecture's abicap ----------------------------
# capgen (the crafted captures' generator, through abicap's own writer)
# built for each booted architecture and run under qemu's user-mode
# emulation: its capture, read here, must hold every record this machine's
# capgen writes (script prints each) and report the same. A capture is
# little-endian whatever the machine (before that was so, s390x's read here
# as 0 records and a damaged chunk). The bytes may differ where the zstd
# library does (riscv64's is trixie's). 3,000 of each kind of record.
if [ $NO_BOOT -eq 0 ] && [ -x build/capgen ]; then
	for kind in freqs cgroup-waits; do
		build/capgen "$kind" 3000 "$OUT/capgen-$kind.abicap" >/dev/null 2>&1
		build/abicap script "$OUT/capgen-$kind.abicap" > "$OUT/capgen-$kind.script" 2>&1
		build/abicap report --format json "$OUT/capgen-$kind.abicap" 2>/dev/null |
			jq -S 'del(.file)' > "$OUT/capgen-$kind.report"
	done
	for a in $BOOT_ARCHES; do
		[ "$a" = amd64 ] && continue
		q=qemu-$a-static
		case $a in ppc64el) q=qemu-ppc64le-static ;; arm64) q=qemu-aarch64-static ;; esac
		if [ ! -x "$(bdir_of "$a")/capgen" ] || ! command -v "$q" >/dev/null; then
			echo "vmtest: FAIL $a: no $(bdir_of "$a")/capgen or $q (make vmtest builds it; scripts/setup.sh installs qemu-user-static)"
			fail=$((fail + 1))
			continue
		fi
		for kind in freqs cgroup-waits; do
			f=capgen-$kind-$a.abicap
			# a relative output: qemu -L looks for absolute paths there first
			(top=$PWD && cd "$OUT" && rm -f "$f" && "$q" -L "$top/build/sysroot/$a" \
				"$top/$(bdir_of "$a")/capgen" "$kind" 3000 "$f" >/dev/null 2>&1)
			if [ -s "$OUT/$f" ] &&
				cmp -s "$OUT/capgen-$kind.script" <(build/abicap script "$OUT/$f" 2>&1) &&
				cmp -s "$OUT/capgen-$kind.report" <(build/abicap report --format json "$OUT/$f" 2>/dev/null | jq -S 'del(.file)'); then
				pass=$((pass + 1))
				echo "vmtest: $a: capgen $kind's capture reads here as amd64's"
			else
				fail=$((fail + 1))
				echo "vmtest: FAIL $a: capgen $kind's capture (under $q) does not read here as amd64's ($OUT/$f)"
			fi
		done
	done
fi

# --- the running kernel ----------------------------------------------------------
if selected running && [ $NO_BOOT -eq 0 ]; then
	echo "vmtest: running kernel $(uname -r) (on the host)"
	res=$(host_run)
	predict_objects /sys/kernel/btf/vmlinux build > "$OUT/running.objects.predicted"
	real_objects "$OUT/host/objload.log" > "$OUT/running.objects.real"
	objects="$(grep -c loads "$OUT/running.objects.real")/$(wc -l < "$OUT/running.objects.real") load, as predicted"
	oreason=""
	if ! diff -q "$OUT/running.objects.predicted" "$OUT/running.objects.real" >/dev/null; then
		oreason="check --object mispredicted: $(diff "$OUT/running.objects.predicted" "$OUT/running.objects.real" | grep '^[<>]' | tr '\n' ' ')"
		objects="MISPREDICTED"
	fi
	truth=$(truth_of "$OUT/host/truth.txt")
	row=$(jq -n --arg release "$(uname -r)" --arg boot "$res" --arg objects "$objects" \
		--arg oreason "$oreason" --arg truth "$truth" --arg arch "$(dpkg --print-architecture)" "$BOOT_REASON"'
		($boot | try fromjson catch null) as $b |
		($truth | try fromjson catch null) as $t |
		{id: "running", arch: $arch, line: "running", flavour: "host", package: "-", version: "-",
		 release: $release, contract: ($b.contract // "-"), offline: "ok", booted: $b,
		 objects: $objects, truth: $t,
		 reason: (if $b == null then $boot
			  elif $b.pass and $oreason != "" then $oreason
			  else boot_reason($b; $t) end)}
		| .pass = (.reason == "")')
	matrix_json=$(jq --argjson r "$row" '. + [$r]' <<<"$matrix_json")
	if jq -e .pass <<<"$row" >/dev/null; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	jq -r '"vmtest: running: \(if .pass then "pass" else "FAIL: \(.reason)" end)"' <<<"$row"
fi
jq . <<<"$offline_json" > "$OUT/offline.json"

# --- verdicts that differ between architectures, line by line --------------------
# The main flavour of each architecture: the one every line has.
main_flavour() {
	case $1 in
	amd64|arm64|s390x|riscv64) echo "$1" ;;
	armhf) echo armmp ;;
	i386) echo 686-pae ;;
	ppc64el) echo powerpc64le ;;
	esac
}
: > "$OUT/arch-differences.txt"
for line in $(jq -r '.[] | select(.contract != "-" and .contract != "no BTF") | .line' "$OUT/offline.json" | sort -uV); do
	# item -> "arch verdict" of every architecture's main flavour on this line
	rows=$(jq -r --arg l "$line" '.[] | select(.line == $l and .contract != "-" and .contract != "no BTF") |
		"\(.arch) \(.flavour) \(.id)"' "$OUT/offline.json" |
		while read -r a f i; do [ "$f" = "$(main_flavour "$a")" ] && echo "$a $i"; done)
	[ "$(wc -l <<<"$rows")" -ge 2 ] || continue
	while read -r a i; do
		f=$OUT/$i.check-btf.json
		[ $INPUT = image ] && f=$OUT/$i.check-image.json
		jq -r --arg a "$a" '.items[] | "\(.scope)/\(.item)\t\($a)\t\(.verdict)\t\(.actual)"' "$f"
	done <<<"$rows" > "$OUT/items-$line.tsv"
	for item in $(cut -f1 "$OUT/items-$line.tsv" | sort -u | tr ' ' '\001'); do
		item=${item//$'\001'/ }
		vs=$(awk -F'\t' -v it="$item" '$1 == it { print $3 }' "$OUT/items-$line.tsv" | sort -u | wc -l)
		[ "$vs" -gt 1 ] || continue
		detail=$(awk -F'\t' -v it="$item" '$1 == it { print $2 ": " $3 " (" $4 ")" }' "$OUT/items-$line.tsv" | paste -sd';' | sed 's/;/; /g')
		why=$(explain_difference "$item")
		if [ -z "$why" ]; then
			echo "vmtest: FAIL $line $item: verdicts differ between architectures, unexplained: $detail"
			fail=$((fail + 1))
			why="UNEXPLAINED"
		fi
		printf '%s\t%s\t%s\t%s\n' "$line" "$item" "$detail" "$why" >> "$OUT/arch-differences.txt"
	done
done

# --- ABI history: consecutive lines of each architecture's main flavour ----------
history=$OUT/history.txt
: > "$history"
for arch in $(cut -f9 "$OUT/manifest.tsv" | awk '!s[$0]++'); do
	prev="" prev_btf=""
	mf=$(main_flavour "$arch")
	while IFS=$'\t' read -r id line flavour pkg ver release dir status a; do
		[[ $a == "$arch" && $flavour == "$mf" && $status == ok ]] || continue
		selected "$id" || continue
		if [ -n "$prev" ]; then
			d=$OUT/diff-$arch-$prev-$line.txt
			build/abicap diff "$prev_btf" "$dir/vmlinux.btf" > "$d" 2> "$d.err"
			drc=$?
			if [ $drc -gt 1 ]; then
				echo "vmtest: FAIL abicap diff $arch $prev -> $line exited $drc: $(head -c 200 "$d.err")"
				fail=$((fail + 1))
			fi
			printf '%s\t%s\t%s\t%s\n' "$arch" "$prev" "$line" "$d" >> "$history"
		fi
		prev=$line prev_btf=$dir/vmlinux.btf
	done < "$OUT/manifest.tsv"
done
# the one diff whose content is known: 5.10 -> 6.1 deletes sched_wakeup.success
for arch in amd64 arm64; do
	d=$OUT/diff-$arch-5.10-6.1.txt
	if [ -f "$d" ] && ! grep -q "BREAKING  record trace_event_raw_sched_wakeup_template.success: deleted" "$d"; then
		echo "vmtest: FAIL: abicap diff $arch 5.10 -> 6.1 does not name the sched_wakeup.success deletion" >&2
		fail=$((fail + 1))
	fi
done

# --- abicap diff against an independent reading, and the tracepoint-ABI data ------
# Every consecutive pair of one architecture and flavour (at least 10 in the
# whole matrix, both byte orders), change by change against
# scripts/btfdiff_oracle.py; with --update-readme the ABI history
# (docs/abi-history.json and the table in docs/results.md) and the tracepoint-ABI report
# (docs/tracepoint-abi.{md,json}) are regenerated from this matrix first,
# and the history is audited by the same reading.
if [ -z "$ONLY" ]; then
	oargs=(--min-pairs "$([ $CI_MODE -eq 1 ] && echo 4 || echo 10)")
	if [ $UPDATE_README -eq 1 ]; then
		scripts/abi-history.sh "$OUT/manifest.tsv" ||
			{ echo "vmtest: FAIL scripts/abi-history.sh"; fail=$((fail + 1)); }
		python3 scripts/tpabi.py --manifest "$OUT/manifest.tsv" ||
			{ echo "vmtest: FAIL scripts/tpabi.py"; fail=$((fail + 1)); }
		oargs+=(--history docs/abi-history.json)
	fi
	if ABICAP_ORACLE_OUT=$OUT/oracle scripts/oracle-matrix.sh "${oargs[@]}" \
		"$OUT/manifest.tsv" > "$OUT/oracle.txt" 2>&1; then
		tail -n 2 "$OUT/oracle.txt"
	else
		grep -E "FAIL|error" "$OUT/oracle.txt" | head -n 40
		echo "vmtest: FAIL abicap diff disagrees with the independent reading (see $OUT/oracle.txt)"
		fail=$((fail + 1))
	fi
fi

# --- output ------------------------------------------------------------------------
jq . <<<"$matrix_json" > "$OUT/matrix.json"
jq -r '
	def ev($k): (.booted.events[$k] // 0 | tostring);
	def truth: if .truth == null then "-" elif .truth.error then "error"
		else "\(.truth.matched)/\(.truth.mismatched)" end;
	(["ARCH", "KERNEL", "PACKAGE VERSION", "CONTRACT", "VARIANT", "SWITCH", "WAKEUP", "WAKING", "IDLE", "DROPS", "TRUTH", "OBJECTS", "CAPTURE ON HOST", "JIT", "RESULT"] | @tsv),
	(.[] | [.arch, .release, .version,
		(if .contract == "degraded" then "degraded (\(.booted.degraded // "?"))" else .contract end),
		(.booted.variant // "-"), ev("sched_switch"), ev("sched_wakeup"), ev("sched_waking"),
		ev("cpu_idle"), (.booted.dropped // "-" | tostring), truth, .objects,
		(.host_read // "-"), (.jit // "-"),
		(if .pass then "pass" else "FAIL" end)] | @tsv)' "$OUT/matrix.json" |
	column -t -s $'\t' > "$OUT/matrix.txt"
jq -r '
	(["ARCH", "KERNEL", "PACKAGE VERSION", "IMAGE", "CONTRACT", "NOT OK", "RESULT"] | @tsv),
	(.[] | [.arch, (if .release == "-" then .id else .release end), .version, .image,
		.contract, (if (.nonok | length) == 0 then "-" else (.nonok | join(",")) end),
		(if .pass == null then "unavailable" elif .pass then "pass" else "FAIL" end)] | @tsv)' \
	"$OUT/offline.json" | column -t -s $'\t' > "$OUT/offline.txt"
{
	echo "| arch | from | to | change (abicap diff) |"
	echo "| --- | --- | --- | --- |"
	while IFS=$'\t' read -r arch from to file; do
		lines=$(grep -E '^(ok|BREAKING) ' "$file" | sed -E 's/^(ok|BREAKING) +//; s/\|/\\|/g')
		[ -n "$lines" ] || lines="no change"
		while IFS= read -r l; do
			kind=$(grep -qF "BREAKING  $l" "$file" && echo "**breaking**: " || echo "")
			[ "$l" = "no change" ] && kind=""
			echo "| $arch | $from | $to | $kind$l |"
		done <<<"$lines"
	done < "$history"
} > "$OUT/history.md"
{
	if [ -s "$OUT/arch-differences.txt" ]; then
		echo "| line | item | verdict per architecture (kernel has) | why |"
		echo "| --- | --- | --- | --- |"
		sed 's/|/\\|/g; s/\t/ | /g; s/^/| /; s/$/ |/' "$OUT/arch-differences.txt"
	else
		echo "No verdict differs between architectures on any line."
	fi
} > "$OUT/arch-differences.md"

n_off=$(jq '[.[] | select(.contract != "-")] | length' "$OUT/offline.json")
n_arch=$(jq '[.[] | select(.contract != "-") | .arch] | unique | length' "$OUT/offline.json")
n_boot=$(jq '[.[] | select(.booted != null and .id != "running")] | length' "$OUT/matrix.json")
echo
echo "Offline: $n_off kernel images of $n_arch architectures checked ($(jq '[.[] | select(.contract == "no BTF")] | length' "$OUT/offline.json") without BTF; $(jq '[.[] | select(.pass == null)] | length' "$OUT/offline.json") lines unavailable: the pool lacks their files)"
cat "$OUT/offline.txt"
echo
echo "Booted: $n_boot kernels"
cat "$OUT/matrix.txt"
echo
echo "Verdicts that differ between architectures:"
cat "$OUT/arch-differences.md"
echo
cat "$OUT/history.md"
jq -r '.[] | select(.pass == false) | "vmtest: FAIL \(.arch) \(.id): \(.reason)"' "$OUT/offline.json" "$OUT/matrix.json" | sort -u

if [ $UPDATE_README -eq 1 ]; then
	{
		echo "<!-- matrix:begin (scripts/vmtest.sh --update-readme, $(date -u +%Y-%m-%d); generated, do not edit) -->"
		echo "Offline: $n_off Debian kernel images of $n_arch architectures, \`abicap check\` on each (input: $INPUT):"
		echo
		echo '```'
		cat "$OUT/offline.txt"
		echo '```'
		echo
		echo "Booted under qemu (TCG): $n_boot kernels, plus the running kernel on the host:"
		echo
		echo '```'
		cat "$OUT/matrix.txt"
		echo '```'
		echo
		echo "Verdicts that differ between architectures on one line:"
		echo
		cat "$OUT/arch-differences.md"
		echo
		echo "ABI history of abicap's events between consecutive lines of each architecture (main flavour), as \`abicap diff\` reports it:"
		echo
		cat "$OUT/history.md"
		echo "<!-- matrix:end -->"
	} > "$OUT/readme-section.md"
	awk -v sec="$OUT/readme-section.md" '
		/<!-- matrix:begin/ { while ((getline l < sec) > 0) print l; skip = 1; next }
		/<!-- matrix:end -->/ { skip = 0; next }
		!skip' docs/results.md > "$OUT/results.new" && mv "$OUT/results.new" docs/results.md
	echo "vmtest: docs/results.md matrix updated"
fi
echo "vmtest: $pass passed, $fail failed"
[ $fail -eq 0 ]
