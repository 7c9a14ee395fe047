/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A kernel's BTF from the running kernel, raw BTF, an ELF vmlinux or a bzImage. */
#ifndef ABICAP_BTF_SOURCE_H
#define ABICAP_BTF_SOURCE_H

#include <stddef.h>

struct btf;

/*
 * path NULL: the running kernel's (/sys/kernel/btf/vmlinux). Otherwise the
 * format is told by its first bytes: raw BTF, ELF (its .BTF section), or an
 * x86 bzImage whose gzip/xz/zstd/lz4 payload is an ELF vmlinux. NULL on error,
 * with one line in err.
 */
struct btf *btf_open(const char *path, char *err, size_t errlen);

#endif
