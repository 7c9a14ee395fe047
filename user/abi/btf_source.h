/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A kernel's BTF from the running kernel, raw BTF, an ELF vmlinux or a boot image. */
#ifndef ABICAP_BTF_SOURCE_H
#define ABICAP_BTF_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

struct btf;

/*
 * path NULL: the running kernel's (/sys/kernel/btf/vmlinux). Otherwise the
 * format is told by its first bytes: raw BTF of either byte order, ELF (its
 * .BTF section; searched when the section table is stripped), an x86
 * bzImage, an EFI zboot image, an arm64/riscv64 Image, an armhf zImage, or
 * a gzip/xz/zstd/lz4 stream of any of them. NULL on error, with one line in
 * err that says whether the file is a kernel image without BTF or no
 * kernel image at all.
 */
struct btf *btf_open(const char *path, char *err, size_t errlen);
/*
 * After btf_open() failed: whether it read a kernel built without BTF (exit
 * 1, the kernel cannot do it) rather than a bad file (exit 2).
 */
bool btf_open_kernel_has_no_btf(void);

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
/*
 * What the last btf_open() spent into *spent (if not NULL); with b, the
 * budget for the next ones (for tests; the default is 1 GiB, 64, 256 MiB,
 * 32 times).
 */
void btf_open_budget(const struct btf_budget *b, struct btf_budget *spent);

/* "running kernel 6.18..." or the file's path. */
void btf_source_label(const char *path, char *out, size_t len);

#endif
