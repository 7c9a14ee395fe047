/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Kernel BTFs built with libbpf's BTF writer, shaped like real kernels'
 * task_struct, btf_trace_* prototypes and trace_event_raw_* records, with
 * the variations the contract tests need.
 */
#ifndef ABICAP_BTF_FIXTURE_H
#define ABICAP_BTF_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

struct btf;

enum sw_shape {
	SW_4ARG, /* 5.18+: (preempt, prev, next, prev_state) */
	SW_3ARG, /* 4.4 - 5.17 */
	SW_518RC1, /* 5.18-rc1: (preempt, prev_state, prev, next) */
};

enum rb_lock {
	RB_RAW, /* raw_spinlock_t: 6.1+ (Debian), RT or not */
	RB_SPINLOCK, /* spinlock_t on a non-RT kernel: a raw spinlock inside */
	RB_SPINLOCK_RT, /* spinlock_t that is an rt_mutex: Debian's 5.10-rt */
	RB_RQSPINLOCK, /* rqspinlock_t (struct qspinlock): 6.18 */
	/* rqspinlock_t without CONFIG_QUEUED_SPINLOCKS: ppc64el, s390x 7.2 */
	RB_RQSPINLOCK_TAS,
};

struct kfix {
	enum sw_shape sw;
	enum rb_lock rb_lock;
	bool old_state; /* task_struct.state (long) instead of __state (5.13-) */
	bool old_cpu; /* task_struct.cpu instead of thread_info.cpu (5.15-) */
	bool cpu_signed; /* the cpu field is an int, as on riscv64 */
	bool wakeup_success; /* sched_wakeup record with 'success' (5.13-) */
	bool no_prio; /* a required field removed */
	bool tgid_u64; /* a required field retyped */
	bool switch_appended; /* sched_switch record with a field appended */
	bool no_cpu_frequency; /* a tracepoint missing entirely */
	bool no_trace_types; /* BTF before 5.5: no btf_trace_* at all */
	bool no_cgroups; /* task_struct without cgroups (CONFIG_CGROUPS=n) */
	bool no_csd; /* no csd_* tracepoints (before 6.3) */
};

/* A modern (6.x) kernel is { 0 }; a 5.10-era one is KFIX_5_10. */
#define KFIX_5_10 \
	((struct kfix){ .sw = SW_3ARG, .old_state = true, .old_cpu = true, \
			.wakeup_success = true, .rb_lock = RB_SPINLOCK, \
			.no_csd = true })

struct btf *kfix_build(const struct kfix *k);

/* The release in the "Linux version" banner of every fixture image */
#define KFIX_RELEASE "6.1.0-abicap-fixture"

/* Write as raw BTF / an ELF with .BTF / an x86 bzImage ("xz", "zstd", "gzip", "lz4"). */
void kfix_write_raw(const struct kfix *k, const char *path);
void kfix_write_elf(const struct kfix *k, const char *path);
void kfix_write_bzimage(const struct kfix *k, const char *path,
			const char *compression);

/* Boot images of the other architectures Debian ships. */
enum kimg {
	KIMG_ARM64, /* uncompressed arm64 Image ("ARM\x64" at 0x38) */
	KIMG_RISCV64, /* uncompressed riscv64 Image ("RSC\x05" at 0x38) */
	KIMG_ZBOOT, /* EFI zboot: "MZ", "zimg", payload = compressed arm64 Image */
	KIMG_ZIMAGE, /* armhf zImage: stub, then a compressed Image */
	KIMG_S390, /* s390x boot image: IPL header, stub, compressed Image */
	KIMG_ELF_S390, /* big- or little-endian ELF vmlinux, e_machine s390 */
	KIMG_ELF_STRIPPED, /* ELF vmlinux without a section table */
	KIMG_RAW, /* raw BTF alone (no decoy; k must not be NULL) */
};

/*
 * Write a kind image holding k's BTF in the given byte order (k NULL: a
 * kernel without BTF) behind a small decoy BTF, as an embedded BPF
 * program's would be; compression ("gzip", "xz", "zstd", "lz4") applies to
 * the kinds with a compressed payload.
 */
void kfix_write_image(const struct kfix *k, const char *path, enum kimg kind,
		      bool big_endian, const char *compression);
/* Compress the file src into dst, as "gzip", "xz", "zstd" or "lz4". */
void kfix_compress_file(const char *src, const char *dst, const char *how);

/*
 * Raw BTF with just the tracepoints and records described, one string each:
 * "NAME(TYPE, TYPE, ...)" for btf_trace_NAME, "NAME{TYPE FIELD; ...}" for
 * struct trace_event_raw_NAME. TYPE: int, unsigned int, unsigned long,
 * u8, u16, bool, struct page *, enum migrate_mode, char * (plain char:
 * signed, or unsigned when one string is "-funsigned-char"), s8 * (signed
 * char).
 */
void tpfix_write(const char *path, const char *const *spec, int n);

/* A file with exactly these bytes. */
void write_file(const char *path, const void *buf, size_t len);

#endif
