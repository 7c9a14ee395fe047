# abicap: see README.md. `make` builds build/abicap; `sudo make test` runs
# every test; `sudo make run` sets up, builds and runs a 5-second live capture.
.DELETE_ON_ERROR:
.DEFAULT_GOAL := all

SHELL := /bin/bash
CLANG ?= clang
BPFTOOL ?= $(shell command -v bpftool || echo /usr/sbin/bpftool)
# The target architecture (kernel naming: x86, arm64, s390, powerpc,
# riscv), by default the build machine's. Another one is cross-built with
# Debian's cross toolchain into build/DEBARCH/ (arm64, s390x, ppc64el,
# riscv64): arm64 with the multiarch libraries scripts/setup.sh installs,
# the others with a sysroot of Debian's packages for that architecture
# (scripts/sysroot.sh, into build/sysroot/DEBARCH; riscv64's from trixie).
# The BPF programs get that architecture's vmlinux.h and __TARGET_ARCH
# define, and its byte order: s390x is big-endian (clang -target bpfeb).
HOST_ARCH := $(patsubst x86_64,x86,$(patsubst aarch64,arm64,$(shell uname -m)))
ARCH ?= $(HOST_ARCH)
BPF_TARGET := bpf
SYSROOT :=
ifeq ($(ARCH),$(HOST_ARCH))
OUT := build
CC ?= gcc
else ifeq ($(ARCH),arm64)
OUT := build/arm64
CC := aarch64-linux-gnu-gcc
else ifeq ($(ARCH),x86)
OUT := build/x86
CC := x86_64-linux-gnu-gcc
else ifeq ($(ARCH),s390)
OUT := build/s390x
CC := s390x-linux-gnu-gcc
BPF_TARGET := bpfeb
SYSROOT := build/sysroot/s390x
else ifeq ($(ARCH),powerpc)
OUT := build/ppc64el
CC := powerpc64le-linux-gnu-gcc
SYSROOT := build/sysroot/ppc64el
else ifeq ($(ARCH),riscv)
OUT := build/riscv64
CC := riscv64-linux-gnu-gcc
SYSROOT := build/sysroot/riscv64
# trixie's libc.a holds relocations bookworm's ld 2.40 cannot link (it
# crashes; R_RISCV_SET_ULEB128, binutils 2.41): LLVM 19's lld links them
LD_DIR := $(OUT)/lld
else
$(error ARCH=$(ARCH) is not supported (x86, arm64, s390, powerpc or riscv))
endif
SYSROOT_DEP := $(if $(SYSROOT),$(SYSROOT)/.packages) $(if $(LD_DIR),$(LD_DIR)/ld)

VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

OPT_CFLAGS ?= -O2 -g
CFLAGS := $(OPT_CFLAGS) -std=gnu11 -Wall -Wextra -Werror -I$(OUT) -Ibpf -Iuser \
	-DABICAP_VERSION='"$(VERSION)"' $(if $(SYSROOT),--sysroot=$(SYSROOT)) \
	$(if $(LD_DIR),-B$(LD_DIR))
BPF_CFLAGS := -g -O2 -target $(BPF_TARGET) -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	-Ivmlinux/$(ARCH) -Ibpf
# build/abicap links libbpf, libelf, jansson, libcap and the compressors
# statically and libc and libmicrohttpd dynamically. build/abicap-static is
# fully static with every command, serve included: it runs where nothing is
# installed (the VM tests' initramfs, the scratch container image). Debian
# has no static build of GnuTLS's own dependencies (p11-kit, libunistring),
# so it links user/static/tls_absent.c in place of GnuTLS: serve never
# asks libmicrohttpd for TLS.
# zlib comes before libelf, and again after it: elfutils 0.19x's libelf.a
# defines a crc32() of its own (uint32_t, not zlib's uLong), and a static
# link takes the first definition: abicap's capture checksums came out
# wrong on riscv64 (trixie's libelf) where libelf's was taken
STATIC_LIBS := -Wl,-Bstatic -lbpf -lz -lelf -ljansson -llzma -llz4 -lz -lzstd -lcap -Wl,-Bdynamic
LIBS := -lbpf -lz -lelf -ljansson -llzma -llz4 -lz -lzstd -lcap
BIN_LIBS := $(STATIC_LIBS) -lmicrohttpd -lpthread

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

BPF_SRC := bpf/abicap.bpf.c
BPF_OBJ := $(OUT)/abicap.bpf.o
SKEL := $(OUT)/abicap.skel.h

# user/ by layer (ARCHITECTURE.md): every source in user/*/ but the entry
# point cmd/main.c and user/static/ makes up libabicap.a, which the binary,
# the tests and every helper tool link, so none of them can drift.
LIB_SRC := $(filter-out user/cmd/main.c user/static/%,$(wildcard user/*/*.c user/*/*.S))
LIB_OBJ := $(patsubst user/%,$(OUT)/user/%.o,$(basename $(LIB_SRC)))
LIB := $(OUT)/libabicap.a
MAIN_OBJ := $(OUT)/user/cmd/main.o
# header dependencies: each object's .d file, written as it is compiled
DEPFLAGS = -MMD -MP

UNIT_SRC := $(wildcard tests/unit_*.c)
KERNEL_SRC := $(wildcard tests/kernel_*.c)
# CO-RE test objects (tests/bpf/) for abicap check --object
TEST_BPF_OBJ := $(patsubst tests/bpf/%.bpf.c,$(OUT)/tests/bpf/%.bpf.o,$(wildcard tests/bpf/*.bpf.c))
# the benchmark's BPF objects (tests/bench/, scripts/bench.sh): built with
# the tests too, so that a change to bpf/ that breaks them fails there
BENCH_BPF_OBJ := $(patsubst tests/bench/%.bpf.c,$(OUT)/tests/bench/%.bpf.o,$(wildcard tests/bench/*.bpf.c))
# objects of the kernel tests alone (tests/kbpf/: a ring buffer's writer)
KBPF_OBJ := $(patsubst tests/kbpf/%.bpf.c,$(OUT)/tests/kbpf/%.bpf.o,$(wildcard tests/kbpf/*.bpf.c))
TEST_HELPERS := $(filter-out $(UNIT_SRC) $(KERNEL_SRC),$(wildcard tests/*.c))

.PHONY: all layers guest capgen test unit-test kernel-test kernel-test-loaded asan-test vmtest vmtest-all soak run setup clean fuzz fuzz-build \
	bench bench-tools

all: layers $(OUT)/abicap $(OUT)/abicap-static $(OUT)/pingpong

# the layering (ARCHITECTURE.md): an upward include fails the build
layers:
	$(Q)scripts/layers.sh

$(OUT):
	$(Q)mkdir -p $@

# BPF objects too write .d files: bpf/*.h, tests/bpf/*.h, tests/bench/*.h
$(BPF_OBJ): $(BPF_SRC) vmlinux/$(ARCH)/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

ifeq ($(BPF_TARGET),bpfeb)
# bpftool 7.1 opens only objects of the build machine's byte order: the
# skeleton comes from a little-endian twin and is given the big-endian
# object's bytes (scripts/skel-bytes.py says why that is the same skeleton)
$(OUT)/abicap.bpfel.o: $(BPF_SRC) vmlinux/$(ARCH)/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(subst -target bpfeb,-target bpfel,$(BPF_CFLAGS)) -c $< -o $@

$(SKEL): $(BPF_OBJ) $(OUT)/abicap.bpfel.o scripts/skel-bytes.py | $(SYSROOT_DEP)
	$(call msg,GEN-SKEL,$@)
	$(Q)set -o pipefail; $(BPFTOOL) gen skeleton $(OUT)/abicap.bpfel.o name abicap_bpf | \
		scripts/skel-bytes.py $(BPF_OBJ) > $@
else
$(SKEL): $(BPF_OBJ) | $(SYSROOT_DEP)
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name abicap_bpf > $@
endif

# the cross builds' sysroot (scripts/sysroot.sh), before anything compiles
ifneq ($(SYSROOT),)
$(SYSROOT)/.packages: scripts/sysroot.sh
	$(call msg,SYSROOT,$(SYSROOT))
	$(Q)scripts/sysroot.sh $(notdir $(SYSROOT)) $(SYSROOT) >/dev/null
endif
ifdef LD_DIR
$(LD_DIR)/ld:
	$(Q)mkdir -p $(@D) && ln -sf /usr/lib/llvm-19/bin/ld.lld $@
endif

# the skeleton is generated: every object waits for it (its .d files say
# which ones include it)
$(OUT)/user/%.o: user/%.c | $(SKEL)
	$(Q)mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(OUT)/abicap: $(MAIN_OBJ) $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(BIN_LIBS) -o $@

$(OUT)/abicap-static: $(MAIN_OBJ) $(OUT)/user/static/tls_absent.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -static $^ $(LIBS) -lmicrohttpd -lpthread -o $@

# the default contract is embedded from bpf/contract.json
$(OUT)/user/%.o: user/%.S bpf/contract.json
	$(Q)mkdir -p $(@D)
	$(call msg,AS,$@)
	$(Q)$(CC) -c $< -o $@

$(OUT)/tests/%.o: tests/%.c | $(SKEL)
	$(Q)mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -Itests -c $< -o $@

$(OUT)/test_unit: $(patsubst tests/%.c,$(OUT)/tests/%.o,$(UNIT_SRC) $(TEST_HELPERS)) $(LIB) | $(TEST_BPF_OBJ) $(BENCH_BPF_OBJ) $(OUT)/capgen
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -lcriterion $(BIN_LIBS) -lm -o $@

$(OUT)/test_kernel: $(patsubst tests/%.c,$(OUT)/tests/%.o,$(KERNEL_SRC) $(TEST_HELPERS)) $(LIB) | $(TEST_BPF_OBJ) $(BENCH_BPF_OBJ) $(KBPF_OBJ) $(OUT)/capgen
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -lcriterion $(BIN_LIBS) -lm -o $@

setup:
	$(Q)scripts/setup.sh

# Unit tests run anywhere; kernel tests load and attach the BPF programs on
# the running kernel (root), one at a time.
# A failed run ends with its failures again, so that the tail of a long log
# (all CI shows) names them. Then the skips, each with its reason (the
# harness writes them to $ABICAP_SKIP_LOG; Criterion's summary does not
# count them): under CI a skip fails the target (docs/testing.md).
run_tests = set -o pipefail; rm -f $(2).skips; \
	ABICAP_SKIP_LOG=$(2).skips $(1) 2>&1 | tee $(2) || { \
	echo "$(notdir $(2)): the failures (whole log: $(2)):"; \
	grep -E -A4 "Assertion Failed|\[FAIL\]|CRASH|Timed out" $(2) | head -n 80; \
	tests/install/skips.sh $(2).skips; exit 1; }; \
	tests/install/skips.sh $(2).skips

unit-test: $(OUT)/test_unit
	$(Q)$(call run_tests,$(OUT)/test_unit --jobs 2,$(OUT)/unit-test.log)

kernel-test: $(OUT)/test_kernel $(OUT)/abicap
	$(Q)$(call run_tests,$(OUT)/test_kernel --jobs 1,$(OUT)/kernel-test.log)

# The kernel suite again on a busy machine, as users' are: LOAD_HOGS CPU
# hogs (stress-ng --cpu) and a messaging storm, a load average of 8 and
# more on 2 CPUs (tests decide by what they observe, never by a time
# window: docs/testing.md); the load ends with the run
# (tests/install/loaded.sh). CI runs it once after make test.
LOAD_HOGS ?= 4
kernel-test-loaded: $(OUT)/test_kernel $(OUT)/abicap
	$(Q)tests/install/loaded.sh $(LOAD_HOGS) bash -c '$(call run_tests,$(OUT)/test_kernel --jobs 1,$(OUT)/kernel-test-loaded.log)'

# The unit tests again, built with AddressSanitizer and UBSan: the parsers
# and readers of untrusted input (contracts, BTF files) must never crash.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
asan-test:
	$(Q)$(MAKE) --no-print-directory OUT=$(OUT)/asan OPT_CFLAGS="$(ASAN_FLAGS)" \
		$(OUT)/asan/test_unit
	@# Criterion does not fail a test that leaks (LeakSanitizer reports at
	@# the worker's exit): any sanitizer report in the log fails the run.
	$(Q)set -o pipefail; rm -f $(OUT)/asan/test.log.skips; ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ABICAP_SKIP_LOG=$(OUT)/asan/test.log.skips \
		$(OUT)/asan/test_unit --jobs 2 2>&1 | tee $(OUT)/asan/test.log
	$(Q)tests/install/skips.sh $(OUT)/asan/test.log.skips asan-test
	$(Q)! grep -E "ERROR: (Leak|Address)Sanitizer|runtime error:" \
		$(OUT)/asan/test.log || { echo "asan-test: sanitizer reports above"; exit 1; }

# every suite runs, whichever fails (-k): make reports all the failures
test: setup
	$(Q)$(MAKE) --no-print-directory all $(OUT)/test_unit $(OUT)/test_kernel
	$(Q)$(MAKE) --no-print-directory -k asan-test unit-test kernel-test install-test

# what a newcomer can read in a glance (issue 33: 54,373 event lines in 5 s
# were a scroll, not an answer): 5 s recorded, its report, what to try next
run: setup
	$(Q)$(MAKE) --no-print-directory all
	$(OUT)/abicap record -d 5 -o $(OUT)/run.abicap --force
	$(OUT)/abicap report $(OUT)/run.abicap --top 5 --slowest 3
	@printf '\nNext, on this capture (%s):\n%s\n%s\n%s\n%s\n' \
		"$(OUT)/run.abicap" \
		"  $(OUT)/abicap timechart $(OUT)/run.abicap -o run.html   # the picture" \
		"  $(OUT)/abicap wakeups $(OUT)/run.abicap                 # who wakes the CPUs" \
		"  $(OUT)/abicap script $(OUT)/run.abicap | less           # every event" \
		"  sudo $(OUT)/abicap trace                                # live events"

clean:
	$(Q)rm -rf $(OUT)

# build/pingpong: the tests' workload, for trying abicap by hand
# (static, like build/abicap, so it runs in the VM tests' initramfs)
$(OUT)/pingpong: tests/tools/pingpong.c $(OUT)/tests/workload.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -static -Itests $^ -lpthread -lm -o $@

# CO-RE test objects for abicap check --object (tests/bpf/), and
# build/objload, which loads them for real to compare with the prediction
$(OUT)/tests/bpf/%.bpf.o: tests/bpf/%.bpf.c vmlinux/$(ARCH)/vmlinux.h
	$(Q)mkdir -p $(@D)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUT)/tests/kbpf/%.bpf.o: tests/kbpf/%.bpf.c vmlinux/$(ARCH)/vmlinux.h
	$(Q)mkdir -p $(@D)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUT)/objload: tests/tools/objload.c tests/tools/objload.h | $(SYSROOT_DEP)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -static -Itests/tools $< $(LIBS) -o $@

# build/vmcheck: judges a capture inside a VM (scripts/vmtest.sh)
$(OUT)/vmcheck: tests/tools/vmcheck.c | $(SYSROOT_DEP)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -static $^ -ljansson -o $@

# build/vmoracle: the differential oracle (tests/oracle.c) inside a VM
$(OUT)/vmoracle: tests/tools/vmoracle.c tests/oracle.c tests/oracle.h $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -static -Itests $(filter %.c %.a,$^) $(LIBS) -lm -o $@

# What a test VM's initramfs holds (scripts/vmtest.sh), static, for ARCH
guest: $(OUT)/abicap-static $(OUT)/pingpong $(OUT)/vmcheck $(OUT)/vmoracle $(OUT)/objload $(TEST_BPF_OBJ)

# The kernel matrix (scripts/vmtest.sh): downloads Debian kernels, checks
# them offline, boots each under qemu (amd64 guests with this build, arm64,
# s390x, ppc64el and riscv64 guests with the cross builds) and captures
# inside it. Root.
# `make vmtest` is CI's subset (the 16-vCPU guest among it);
# `make vmtest-all` every kernel, and it rewrites the matrix tables in
# docs/results.md.
VMTEST_BUILD = $(MAKE) --no-print-directory all guest && \
	for a in arm64 s390 powerpc riscv; do \
		$(MAKE) --no-print-directory ARCH=$$a guest capgen || exit 1; \
	done
vmtest: setup
	$(Q)$(VMTEST_BUILD)
	$(Q)scripts/vmtest.sh --ci


vmtest-all: setup
	$(Q)$(VMTEST_BUILD)
	$(Q)scripts/vmtest.sh --update-readme

# build/capcheck: reads a capture file through, record by record (scripts/soak.sh)
$(OUT)/capcheck: tests/tools/capcheck.c $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(BIN_LIBS) -o $@

# build/capgen: crafted captures for the report/export cost checks
# (scripts/bench.sh); each architecture's writes the same bytes (vmtest)
capgen: $(OUT)/capgen
$(OUT)/capgen: tests/tools/capgen.c $(LIB) | $(SYSROOT_DEP)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(BIN_LIBS) -o $@

# The soak test (scripts/soak.sh): SOAK_SECONDS of recording the ping-pong
# workload; RSS and fds flat after warm-up, every event in the file or
# counted as dropped, the file complete. Root; not part of `make test`.
SOAK_SECONDS ?= 600
soak: all $(OUT)/capcheck
	$(Q)SOAK_SECONDS=$(SOAK_SECONDS) scripts/soak.sh
# libFuzzer targets (tests/fuzz/fuzz_*.c) on the readers of untrusted input:
# contracts, BTF files (raw, ELF, bzImage), capture files, and captures as
# the Perfetto exporter reads them. clang with ASan and UBSan; the library
# is compiled again with clang into build/fuzz/obj. `make fuzz` runs each
# target for FUZZ_SECONDS on a copy of its seed corpus (tests/fuzz/corpus/,
# regenerated by tests/fuzz/mkseeds.sh) and fails on any crash, leak,
# timeout, out-of-memory or sanitizer report; the input that did it is kept
# in build/fuzz/run/TARGET/. The limits hold the readers of kernel images
# and BPF objects to their budget for one input (README "Fuzzing"): a
# file is read, or refused, within 2.5 GB and 30 s under ASan (the budget:
# 1 GiB decompressed, 256 MiB of BTF); an object within 1 GB and 20 s.
FUZZ_TARGETS := fuzz_contract fuzz_btf fuzz_object fuzz_capfile fuzz_capdamage fuzz_perfetto fuzz_metrics fuzz_analysis fuzz_views
FUZZ_SECONDS ?= 60
FUZZ_OUT := $(OUT)/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := -O1 -g -fno-omit-frame-pointer $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
	-std=gnu11 -Wall -Wextra -Werror -Wno-unknown-warning-option \
	-I$(OUT) -Ibpf -Iuser -Itests -DABICAP_VERSION='"$(VERSION)"' \
	-DFUZZ_SEEDS='"$(CURDIR)/tests/fuzz/corpus"'
FUZZ_LIB_OBJ := $(patsubst user/%,$(FUZZ_OUT)/obj/user/%.o,$(basename $(LIB_SRC)))
FUZZ_RUN_FLAGS := -max_total_time=$(FUZZ_SECONDS) -close_fd_mask=3 -print_final_stats=1
FUZZ_LIMITS := -timeout=30 -rss_limit_mb=2560
FUZZ_LIMITS_OBJECT := -timeout=20 -rss_limit_mb=1024

$(FUZZ_OUT)/obj/user/%.o: user/%.c | $(SKEL)
	$(Q)mkdir -p $(@D)
	$(call msg,CC-FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(FUZZ_OUT)/obj/user/%.o: user/%.S bpf/contract.json
	$(Q)mkdir -p $(@D)
	$(call msg,AS,$@)
	$(Q)$(CLANG) -c $< -o $@

$(FUZZ_OUT)/obj/tests/%.o: tests/%.c | $(SKEL)
	$(Q)mkdir -p $(@D)
	$(call msg,CC-FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(FUZZ_OUT)/fuzz_%: $(FUZZ_OUT)/obj/tests/fuzz/fuzz_%.o $(FUZZ_OUT)/obj/tests/fuzz/fuzz_common.o $(FUZZ_LIB_OBJ)
	$(call msg,LINK,$@)
	$(Q)$(CLANG) $(FUZZ_SAN) -fsanitize=fuzzer $^ $(BIN_LIBS) -o $@

# the metrics target checks its output with the tests' exposition reader
$(FUZZ_OUT)/fuzz_metrics: $(FUZZ_OUT)/obj/tests/promcheck.o

# the seed generator (tests/fuzz/mkseeds.sh)
$(FUZZ_OUT)/seeds.o: tests/fuzz/seeds.c | $(SKEL)
	$(Q)mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -Itests -c $< -o $@

$(FUZZ_OUT)/seeds: $(FUZZ_OUT)/seeds.o $(OUT)/tests/btf_fixture.o $(OUT)/tests/harness.o $(OUT)/tests/workload.o \
		$(OUT)/tests/objfix.o \
		$(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -lcriterion $(BIN_LIBS) -lm -o $@

# objects kept between builds (pattern-rule chains would delete them)
.SECONDARY: $(FUZZ_LIB_OBJ) $(patsubst tests/%.c,$(FUZZ_OUT)/obj/tests/%.o,$(wildcard tests/fuzz/fuzz_*.c))

fuzz-build: $(addprefix $(FUZZ_OUT)/,$(FUZZ_TARGETS))

fuzz: fuzz-build
	$(Q)for t in $(FUZZ_TARGETS); do \
		run=$(FUZZ_OUT)/run/$$t; \
		rm -rf $$run && mkdir -p $$run/corpus && \
		cp tests/fuzz/corpus/$$t/* $$run/corpus/ && \
		echo "  FUZZ     $$t for $(FUZZ_SECONDS) s (log: $$run/log)" && \
		lim="$(FUZZ_LIMITS)"; [ $$t != fuzz_object ] || lim="$(FUZZ_LIMITS_OBJECT)"; \
		( cd $$run && ../../$$t $(FUZZ_RUN_FLAGS) $$lim -artifact_prefix=./ \
			corpus > log 2>&1 ) && \
		! grep -qE "runtime error:|ERROR: [A-Za-z]+Sanitizer" $$run/log || \
		{ tail -n 60 $$run/log; echo "fuzz: $$t failed: see $$run"; exit 1; }; \
		grep -E "^stat::(number_of_executed_units|average_exec_per_sec)" \
			$$run/log | tr '\n' ' '; echo; \
	done

# The benchmark (scripts/bench.sh; not part of make test): build/bpfstats
# reads bpf_stats' run time of abicap's programs and of the objects in
# tests/bench/ (an empty program as the floor, variants of the sched_switch
# program). Root; takes the BPF lock while it measures.
$(OUT)/tests/bench/%.bpf.o: tests/bench/%.bpf.c vmlinux/$(ARCH)/vmlinux.h
	$(Q)mkdir -p $(@D)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUT)/bpfstats: tests/tools/bpfstats.c user/live/ringread.c user/live/ringread.h | $(OUT)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -static $< user/live/ringread.c $(LIBS) -o $@

bench-tools: all $(OUT)/bpfstats $(OUT)/capgen $(BENCH_BPF_OBJ)

bench: setup
	$(Q)$(MAKE) --no-print-directory bench-tools
	$(Q)scripts/bench.sh --update-readme

# The ABI history (the table in docs/results.md between the abi-history markers, and
# docs/abi-history.json) from the kernel matrix's manifest: scripts/abi-history.sh
.PHONY: abi-history
abi-history: $(OUT)/abicap
	$(Q)scripts/abi-history.sh

# ---- Installing: make install / uninstall, man pages, package, image ----
# The binary in bin, its pages in man section 1: half of abicap (report,
# export, check, diff, contract) is for any user, and the capturing half
# asks for its privilege by name; data under share/abicap. Each man page is generated from the command's --help
# (scripts/mkman.sh), so the two cannot drift. `make uninstall` with the
# same PREFIX and DESTDIR removes exactly what `make install` put.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/abicap
DOCDIR ?= $(PREFIX)/share/doc/abicap
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
UNITDIR ?= $(PREFIX)/lib/systemd/system
INSTALL_BIN ?= $(OUT)/abicap
COMMANDS := trace record report export script timechart heatmap wakeups check diff serve contract
MAN_PAGES := $(OUT)/man/abicap.1 $(patsubst %,$(OUT)/man/abicap-%.1,$(COMMANDS))
DEPLOY_DATA := scripts/deploy/grafana-dashboard.json scripts/deploy/prometheus-rules.yml
# the README's internals pages, where its links find them
DOC_PAGES := $(wildcard docs/*.md)
# what `make install` puts, relative to DESTDIR
INSTALLED := $(BINDIR)/abicap $(patsubst $(OUT)/man/%,$(MANDIR)/man1/%,$(MAN_PAGES)) \
	$(BASHCOMPDIR)/abicap $(ZSHCOMPDIR)/_abicap $(UNITDIR)/abicap.service \
	$(DATADIR)/contract.json $(addprefix $(DATADIR)/,$(notdir $(DEPLOY_DATA))) \
	$(DOCDIR)/README.md $(patsubst %,$(DOCDIR)/%,$(DOC_PAGES))
# the directories `make install` created (none that existed before), which
# `make uninstall` removes once empty; a package (debian/rules) drops it
INSTALLED_DIRS := $(DATADIR)/installed-dirs

.PHONY: man install uninstall install-test docs-test golden package-test image image-test deb

man: $(MAN_PAGES)

$(OUT)/man/abicap.1: $(OUT)/abicap scripts/mkman.sh man/examples/abicap.txt
	$(Q)mkdir -p $(@D)
	$(call msg,MAN,$@)
	$(Q)scripts/mkman.sh $(OUT)/abicap > $@

$(OUT)/man/abicap-%.1: $(OUT)/abicap scripts/mkman.sh man/examples/%.txt
	$(Q)mkdir -p $(@D)
	$(call msg,MAN,$@)
	$(Q)scripts/mkman.sh $(OUT)/abicap $* > $@

install: $(INSTALL_BIN) $(MAN_PAGES)
	$(Q)for f in $(INSTALLED); do d=$${f%/*}; \
		while [ -n "$$d" ] && [ ! -d "$(DESTDIR)$$d" ]; do \
			echo "$$d"; d=$${d%/*}; done; \
	done > $(OUT)/install-dirs.new
	$(Q)install -D -m 0755 $(INSTALL_BIN) $(DESTDIR)$(BINDIR)/abicap
	$(Q)install -d $(DESTDIR)$(MANDIR)/man1
	$(Q)install -m 0644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/
	$(Q)install -D -m 0644 completion/abicap.bash $(DESTDIR)$(BASHCOMPDIR)/abicap
	$(Q)install -D -m 0644 completion/_abicap $(DESTDIR)$(ZSHCOMPDIR)/_abicap
	$(Q)install -d $(DESTDIR)$(UNITDIR)
	$(Q)sed 's|^ExecStart=[^ ]*abicap |ExecStart=$(BINDIR)/abicap |' \
		scripts/deploy/abicap.service > $(DESTDIR)$(UNITDIR)/abicap.service
	$(Q)chmod 0644 $(DESTDIR)$(UNITDIR)/abicap.service
	$(Q)install -D -m 0644 bpf/contract.json $(DESTDIR)$(DATADIR)/contract.json
	$(Q)install -m 0644 $(DEPLOY_DATA) $(DESTDIR)$(DATADIR)/
	$(Q)install -D -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	$(Q)install -d $(DESTDIR)$(DOCDIR)/docs
	$(Q)install -m 0644 $(DOC_PAGES) $(DESTDIR)$(DOCDIR)/docs/
	$(Q)cat $(DESTDIR)$(INSTALLED_DIRS) $(OUT)/install-dirs.new 2>/dev/null | \
		LC_ALL=C sort -u > $(DESTDIR)$(INSTALLED_DIRS).new
	$(Q)chmod 0644 $(DESTDIR)$(INSTALLED_DIRS).new
	$(Q)mv -f $(DESTDIR)$(INSTALLED_DIRS).new $(DESTDIR)$(INSTALLED_DIRS)
	$(Q)rm -f $(OUT)/install-dirs.new

# the files, then each directory install created, deepest first, if empty
uninstall:
	$(Q)dirs=$$(cat $(DESTDIR)$(INSTALLED_DIRS) 2>/dev/null); \
	rm -f $(addprefix $(DESTDIR),$(INSTALLED) $(INSTALLED_DIRS)) && \
	for d in $$(printf '%s\n' $$dirs | LC_ALL=C sort -r); do \
		rmdir "$(DESTDIR)$$d" 2>/dev/null || true; done

# man pages, completion, install/uninstall, rules and dashboard: quick,
# part of make test (tests/install/)
install-test: $(OUT)/abicap $(OUT)/abicap-static $(MAN_PAGES) $(OUT)/test_unit
	$(Q)tests/install/run.sh

# the outputs of a fixed set of commands on the test fixtures, byte for
# byte against another build (scripts/golden.sh; not part of make test):
# make golden OLD=/path/to/old/abicap
golden: $(OUT)/abicap $(OUT)/capgen $(TEST_BPF_OBJ)
	$(Q)[ -n "$(OLD)" ] || { echo "make golden OLD=/path/to/abicap: the build to compare with" >&2; exit 2; }
	$(Q)scripts/golden.sh $(OLD) $(OUT)/abicap $(GOLDEN_DIR)

# every README example run and its output compared (tests/install/docs.sh;
# about a minute: .ci/run calls it)
docs-test: $(OUT)/abicap $(OUT)/pingpong $(TEST_BPF_OBJ)
	$(Q)tests/install/docs.sh

# the Debian package, built in a copy of the tree (scripts/deb.sh): no
# make clean here, nothing left in debian/; the .deb in $(OUT)/
deb:
	$(Q)scripts/deb.sh $(OUT)

# the Debian package built, linted, installed, run and purged: slow
# (tests/install/package.sh); .ci/run calls it
package-test: $(OUT)/pingpong $(OUT)/abicap-static
	$(Q)tests/install/package.sh

# The container image (scripts/image.sh): from scratch, offline, the static
# binary and the contract; an OCI archive to load and push (README). Root.
IMAGE := $(OUT)/abicap-image.tar
image: $(IMAGE)

$(IMAGE): $(OUT)/abicap-static bpf/contract.json scripts/image.sh
	$(Q)scripts/image.sh $(OUT)/abicap-static bpf/contract.json $@ $(VERSION)

image-test: $(IMAGE)
	$(Q)IMAGE=$(IMAGE) tests/install/image.sh

# the header dependencies of every object built so far
-include $(shell find $(OUT) -path build/sysroot -prune -o -name '*.d' -type f -print 2>/dev/null)
