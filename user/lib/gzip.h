/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A buffer in the gzip format (RFC 1952), as HTTP's Content-Encoding: gzip. */
#ifndef ABICAP_GZIP_H
#define ABICAP_GZIP_H

#include <stddef.h>

/*
 * in[0..len) gzipped at zlib's fastest level (a page is made often and
 * read once per scraper): *out malloc'd, *outlen bytes. 0 or -ENOMEM.
 */
int gzip_buffer(const void *in, size_t len, void **out, size_t *outlen);

#endif
