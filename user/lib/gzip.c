// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <zlib.h>
#include "lib/gzip.h"

int gzip_buffer(const void *in, size_t len, void **out, size_t *outlen)
{
	z_stream z = { 0 };
	unsigned char *buf;
	size_t cap;
	int r;

	*out = NULL;
	*outlen = 0;
	/* windowBits 15 + 16: a gzip header and trailer, not zlib's */
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, len) + 32;
	buf = malloc(cap);
	if (!buf) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (unsigned char *)in;
	z.next_out = buf;
	/* in pieces: avail_in is a uInt */
	do {
		size_t left = len - (size_t)((const unsigned char *)z.next_in -
					     (const unsigned char *)in);

		z.avail_in = left > (1u << 30) ? 1u << 30 : (unsigned)left;
		z.avail_out = cap - z.total_out > (1u << 30) ? 1u << 30 :
			      (unsigned)(cap - z.total_out);
		r = deflate(&z, z.avail_in == left ? Z_FINISH : Z_NO_FLUSH);
	} while (r == Z_OK || r == Z_BUF_ERROR);
	*outlen = z.total_out;
	deflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(buf);
		*outlen = 0;
		return -ENOMEM;
	}
	*out = buf;
	return 0;
}
