/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The compressed streams kernel images carry: gzip, xz, zstd, LZ4 legacy. */
#ifndef ABICAP_UNPACK_H
#define ABICAP_UNPACK_H

#include <stddef.h>

#define UNPACK_MAX (1ull << 30) /* no stream decompresses to more than this */
/* xz's decoder memory (its dictionary): xz -9 needs 65 MiB, the kernel's 32 MiB */
#define UNPACK_XZ_MEM (256ull << 20)

enum unpack_fmt { UP_NONE, UP_GZIP, UP_XZ, UP_ZSTD, UP_LZ4 };

struct growbuf {
	unsigned char *p;
	size_t len, cap;
	size_t limit; /* set by the caller: at most this many bytes (0: UNPACK_MAX) */
};

/* The format whose magic starts p, or UP_NONE. */
enum unpack_fmt unpack_magic(const unsigned char *p, size_t len);
const char *unpack_name(enum unpack_fmt f);
/*
 * Decompress the stream starting at in (bytes after its end are ignored)
 * into g (g->p is malloc'd; the caller frees it, also on error). 0, or
 * -EINVAL for corrupt or cut-short data, -EFBIG past g->limit (or
 * UNPACK_MAX), -E2BIG for an xz
 * dictionary past UNPACK_XZ_MEM, -ENOMEM.
 */
int unpack(enum unpack_fmt f, const unsigned char *in, size_t len,
	   struct growbuf *g);
/* "corrupt or cut short", "larger than the limit", ... for unpack()'s return. */
const char *unpack_strerror(int r);

#endif
