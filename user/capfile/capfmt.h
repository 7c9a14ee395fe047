/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The capture format's layout (capfile.h), shared by its writer and reader. */
#ifndef ABICAP_CAPFMT_H
#define ABICAP_CAPFMT_H

#include <stdint.h>
#include <zstd.h>
#include "capfile/capfile.h"

#define CAPFMT_MAGIC "ABICAP\r\n" /* 8 bytes, no NUL in the file */
#define MAX_META (1u << 20)
#define MAX_CHUNK_Z (ZSTD_COMPRESSBOUND(CAPFILE_CHUNK_RAW) + 4096)
/* format 4: a block's header, and the prefixes of chunk and trailer payloads */
#define BLK_HDR 20
#define CHNK_PRE 24
#define TRLR_PRE 16
#define DROP_ENTRY_V4 32
#define DROP_ENTRY 40 /* format 5: and u32 cpu, u32 0 */
#define DROP_ALL_CPUS UINT32_MAX
#define BLK_MAX (MAX_CHUNK_Z + CHNK_PRE)
/* the highest version a later abicap might write: past it, a damaged header */
#define CAPFMT_VERSION_PLAUSIBLE 255

static inline void put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline uint16_t get16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

static inline uint32_t get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void put64(unsigned char *p, uint64_t v)
{
	put32(p, v);
	put32(p + 4, v >> 32);
}

static inline uint64_t get64(const unsigned char *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

#endif
