/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A kernel's BTF from the running kernel, raw BTF, an ELF vmlinux or a boot image. */
#ifndef ABICAP_BTF_SOURCE_H
#define ABICAP_BTF_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include "abi/kernel_id.h"

struct btf;

/*
 * The budget of work btf_open() does for one file, in all (every stream,
 * every layer): bytes decompressed, decompressions tried, bytes handed to
 * the BTF parser. Past any of it, btf_open() stops before the work and
 * says which (exit 2: no kernel image needs that much).
 */
struct btf_budget {
	unsigned long long bytes, streams, btf_bytes;
	/*
	 * one stream decompresses to at most ratio times its compressed size,
	 * plus BTF_STREAM_FLOOR (0: no such bound)
	 */
	unsigned long long ratio;
};
#define BTF_STREAM_FLOOR (1ull << 20)

/* One btf_open(): its budget, and what it spent and found out. */
struct btf_open_info {
	/* in: the budget (bytes 0: the default, 1 GiB, 64, 256 MiB, 32 times) */
	struct btf_budget budget;
	struct btf_budget spent; /* out */
	bool over_budget; /* out: it stopped there */
	/*
	 * out, after a failure: a kernel built without BTF (exit 1, the
	 * kernel cannot do it) rather than a bad file (exit 2)
	 */
	bool no_btf;
	struct kernel_id kid; /* out: the kernel's release and architecture */
};

/*
 * path NULL: the running kernel's (/sys/kernel/btf/vmlinux). Otherwise the
 * format is told by its first bytes: raw BTF of either byte order, ELF (its
 * .BTF section; searched when the section table is stripped), an x86
 * bzImage, an EFI zboot image, an arm64/riscv64 Image, an armhf zImage, or
 * a gzip/xz/zstd/lz4 stream of any of them. NULL on error, with one line in
 * err that says whether the file is a kernel image without BTF or no
 * kernel image at all. info (NULL: the defaults, nothing told) gives the
 * budget and takes what was found.
 */
struct btf *btf_open(const char *path, struct btf_open_info *info, char *err,
		     size_t errlen);

/* "running kernel 6.18..." or the file's path. */
void btf_source_label(const char *path, char *out, size_t len);

#endif
