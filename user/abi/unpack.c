// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <lz4.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <linux/types.h>
#include "abi/unpack.h"
#include "lib/array.h"

/* Room for want bytes, or as many as the limit leaves (at least one), or -EFBIG. */
static int grow(struct growbuf *g, size_t want)
{
	size_t limit = g->limit && g->limit < UNPACK_MAX ? g->limit : UNPACK_MAX;
	size_t cap = array_grown(g->cap, want < limit ? want : limit, 1 << 24,
				 limit);
	unsigned char *np;

	if (g->len >= limit)
		return -EFBIG;
	if (cap == g->cap)
		return 0;
	np = realloc(g->p, cap);
	if (!np)
		return -ENOMEM;
	g->p = np;
	g->cap = cap;
	return 0;
}

static __u32 le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (__u32)p[3] << 24;
}

/*
 * LZ4 "legacy" frames, as the kernel's CONFIG_KERNEL_LZ4 writes them (Debian's
 * 6.1 cloud kernel): magic 0x184c2102, then blocks of a le32 compressed size
 * and data that decompresses to at most 8 MiB; the build appends the
 * uncompressed size (le32), which ends the stream.
 */
#define LZ4_LEGACY_BLOCK (8u << 20)

static int unlz4(const unsigned char *in, size_t len, struct growbuf *g)
{
	size_t pos = 4;
	int err = 0;

	while (!err && pos + 4 <= len) {
		__u32 clen = le32(in + pos);
		int n, room;

		if (clen == 0x184c2102) { /* a concatenated frame */
			pos += 4;
			continue;
		}
		if (clen > (__u32)LZ4_compressBound(LZ4_LEGACY_BLOCK) ||
		    clen > len - pos - 4)
			break; /* the size trailer, or the end */
		if ((err = grow(g, g->len + LZ4_LEGACY_BLOCK)))
			break;
		room = g->cap - g->len < LZ4_LEGACY_BLOCK ? g->cap - g->len :
		       LZ4_LEGACY_BLOCK;
		n = LZ4_decompress_safe((const char *)in + pos + 4,
					(char *)g->p + g->len, clen, room);
		if (n < 0) /* past the room the limit left, or corrupt */
			err = room < (int)LZ4_LEGACY_BLOCK ? -EFBIG : -EINVAL;
		else
			g->len += n;
		pos += 4 + clen;
	}
	return !err && !g->len ? -EINVAL : err;
}

/* Each decoder writes the whole stream into g; 0, or -errno / -EINVAL for bad data. */
static int unxz(const unsigned char *in, size_t len, struct growbuf *g)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r;
	int err = 0;

	if (lzma_stream_decoder(&s, UNPACK_XZ_MEM, 0) != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = len;
	do {
		if ((err = grow(g, g->len + (1 << 20))))
			break;
		s.next_out = g->p + g->len;
		s.avail_out = g->cap - g->len;
		r = lzma_code(&s, LZMA_FINISH);
		g->len = g->cap - s.avail_out;
		if (r == LZMA_MEMLIMIT_ERROR)
			err = -E2BIG;
		else if (r != LZMA_OK && r != LZMA_STREAM_END)
			err = -EINVAL;
	} while (!err && r != LZMA_STREAM_END);
	lzma_end(&s);
	return err;
}

static int unzstd(const unsigned char *in, size_t len, struct growbuf *g)
{
	ZSTD_DStream *d = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, len, 0 };
	size_t r = 1;
	int err = 0;

	if (!d)
		return -ENOMEM;
	ZSTD_initDStream(d);
	while (!err && r) {
		ZSTD_outBuffer ob;

		if ((err = grow(g, g->len + (1 << 20))))
			break;
		ob = (ZSTD_outBuffer){ g->p + g->len, g->cap - g->len, 0 };
		r = ZSTD_decompressStream(d, &ob, &ib);
		g->len += ob.pos;
		if (ZSTD_isError(r))
			err = -EINVAL;
		else if (r && ib.pos == ib.size && ob.pos < ob.size)
			err = -EINVAL; /* truncated */
	}
	ZSTD_freeDStream(d);
	return err;
}

static int ungzip(const unsigned char *in, size_t len, struct growbuf *g)
{
	z_stream z = { 0 };
	int r = Z_OK, err = 0;

	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	z.next_in = (unsigned char *)in;
	z.avail_in = len;
	while (!err && r != Z_STREAM_END) {
		if ((err = grow(g, g->len + (1 << 20))))
			break;
		z.next_out = g->p + g->len;
		z.avail_out = g->cap - g->len;
		r = inflate(&z, Z_NO_FLUSH);
		g->len = g->cap - z.avail_out;
		if (r != Z_OK && r != Z_STREAM_END)
			err = -EINVAL;
	}
	inflateEnd(&z);
	return err;
}

enum unpack_fmt unpack_magic(const unsigned char *p, size_t len)
{
	if (len >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6))
		return UP_XZ;
	if (len >= 4 && !memcmp(p, "\x28\xb5\x2f\xfd", 4))
		return UP_ZSTD;
	if (len >= 3 && !memcmp(p, "\x1f\x8b\x08", 3))
		return UP_GZIP;
	if (len >= 4 && !memcmp(p, "\x02\x21\x4c\x18", 4))
		return UP_LZ4;
	return UP_NONE;
}

const char *unpack_name(enum unpack_fmt f)
{
	static const char *const names[] = { "?", "gzip", "xz", "zstd", "lz4" };

	return names[f];
}

int unpack(enum unpack_fmt f, const unsigned char *in, size_t len,
	   struct growbuf *g)
{
	switch (f) {
	case UP_GZIP:
		return ungzip(in, len, g);
	case UP_XZ:
		return unxz(in, len, g);
	case UP_ZSTD:
		return unzstd(in, len, g);
	case UP_LZ4:
		return unlz4(in, len, g);
	default:
		return -EINVAL;
	}
}

const char *unpack_strerror(int r)
{
	return r == -EINVAL ? "corrupt or cut short" :
	       r == -EFBIG ? "larger than the limit" :
	       r == -E2BIG ? "its dictionary needs more than the 256 MiB "
			     "abicap gives xz (xz -9 needs 65 MiB)" :
	       strerror(-r);
}
