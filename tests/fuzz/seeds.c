// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Writes the generated seeds of tests/fuzz/corpus/ (tests/fuzz/mkseeds.sh
 * runs it): the BTF fixture kernels as raw BTF, ELF and bzImages, damaged
 * variants of a real capture, and the Perfetto target's "META\0RECORDS"
 * form of it. A Criterion program because the BTF fixture writer
 * (tests/btf_fixture.c) asserts with Criterion.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "btf_fixture.h"
#include "capfile.h"
#include "harness.h"
#include "record.h"
#include "util.h"

static char *seed(const char *target, const char *name)
{
	static char path[4096];
	const char *dir = getenv("FUZZ_SEED_DIR");

	cr_assert(dir, "set FUZZ_SEED_DIR (tests/fuzz/mkseeds.sh does)");
	snprintf(path, sizeof(path), "%s/%s/%s", dir, target, name);
	return path;
}

Test(seeds, btf)
{
	static const char *const packs[] = { "xz", "zstd", "gzip", "lz4" };
	const struct kfix modern = { 0 }, old = KFIX_5_10;
	unsigned char *buf;
	size_t len;
	char name[64];

	kfix_write_raw(&modern, seed("fuzz_btf", "raw-6x.btf"));
	kfix_write_raw(&old, seed("fuzz_btf", "raw-5.10.btf"));
	kfix_write_elf(&modern, seed("fuzz_btf", "elf-6x.elf"));
	kfix_write_elf(&old, seed("fuzz_btf", "elf-5.10.elf"));
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "bzimage-%s", packs[i]);
		kfix_write_bzimage(&modern, seed("fuzz_btf", name), packs[i]);
	}
	/* the other architectures' images, big-endian where Debian's are */
	kfix_write_image(&modern, seed("fuzz_btf", "raw-be.btf"), KIMG_RAW, true, NULL);
	kfix_write_image(&modern, seed("fuzz_btf", "arm64-Image"), KIMG_ARM64, false, NULL);
	kfix_write_image(&modern, seed("fuzz_btf", "zboot-zstd"), KIMG_ZBOOT, false, "zstd");
	kfix_write_image(&modern, seed("fuzz_btf", "zImage-xz"), KIMG_ZIMAGE, false, "xz");
	kfix_write_image(&modern, seed("fuzz_btf", "s390x-gzip"), KIMG_S390, true, "gzip");
	kfix_write_image(&modern, seed("fuzz_btf", "elf-stripped"), KIMG_ELF_STRIPPED, false, NULL);
	kfix_write_image(NULL, seed("fuzz_btf", "arm64-Image-no-btf"), KIMG_ARM64, false, NULL);
	/* cut short: raw BTF, and a bzImage inside its payload */
	buf = read_file(seed("fuzz_btf", "raw-6x.btf"), &len);
	write_file(seed("fuzz_btf", "cut-raw.btf"), buf, len / 2);
	free(buf);
	buf = read_file(seed("fuzz_btf", "bzimage-zstd"), &len);
	write_file(seed("fuzz_btf", "cut-bzimage-zstd"), buf, len - len / 4);
	free(buf);
}

static size_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (size_t)p[3] << 24;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

/*
 * The first chunk header, after the metadata and any cgroup names or drop
 * windows (capfile.h).
 */
static size_t first_chunk(const unsigned char *buf, size_t len)
{
	size_t off = 16 + le32(buf + 12);

	while (off + 12 < len && (!memcmp(buf + off, "CGRP", 4) ||
				  !memcmp(buf + off, "DROP", 4)))
		off += 12 + le32(buf + off + 4);
	cr_assert(off + 20 < len && !memcmp(buf + off, "CHNK", 4),
		  "FUZZ_CAPTURE has no chunk after its header");
	return off;
}

Test(seeds, capture)
{
	const char *cap = getenv("FUZZ_CAPTURE");
	union abicap_rec rec;
	unsigned char *buf, *d;
	char err[ERRMSG_LEN];
	struct capr *r;
	size_t len, chunk, tail;
	FILE *f;

	cr_assert(cap, "set FUZZ_CAPTURE to a capture (abicap record)");
	buf = read_file(cap, &len);
	chunk = first_chunk(buf, len);
	write_file(seed("fuzz_capfile", "real.abicap"), buf, len);
	write_file(seed("fuzz_perfetto", "real.abicap"), buf, len);
	write_file(seed("fuzz_capfile", "header-only.abicap"), buf, chunk);
	write_file(seed("fuzz_capfile", "cut-in-chunk.abicap"), buf,
		   chunk + (len - chunk) / 2);
	/* no trailer: everything up to "TRLR" */
	for (tail = len - 8; tail > chunk && memcmp(buf + tail, "TRLR", 4); tail--)
		;
	write_file(seed("fuzz_capfile", "no-trailer.abicap"), buf, tail);
	d = malloc(len);
	memcpy(d, buf, len);
	d[chunk + 20 + (len - chunk - 20) / 3] ^= 0x40; /* fails its checksum */
	write_file(seed("fuzz_capfile", "bad-crc.abicap"), d, len);
	memcpy(d, buf, len);
	memcpy(d + chunk, "CHNX", 4);
	write_file(seed("fuzz_capfile", "bad-block.abicap"), d, len);
	memcpy(d, buf, len);
	d[8] = CAPFILE_VERSION + 1; /* a later format version */
	write_file(seed("fuzz_capfile", "version-later.abicap"), d, len);
	free(d);
	/* a drop window before the first chunk (format 3), and one damaged */
	d = malloc(len + 36);
	memcpy(d, buf, chunk);
	memcpy(d + chunk, "DROP\x18\0\0\0", 8);
	for (int i = 0; i < 24; i++) /* start 1 ms, end 2 ms, count 5 */
		d[chunk + 12 + i] = i < 8 ? (1000000ull >> (8 * i)) & 0xff :
				    i < 16 ? (2000000ull >> (8 * (i - 8))) & 0xff :
				    i == 16 ? 5 : 0;
	put_le32(d + chunk + 8, crc32(0, d + chunk + 12, 24));
	memcpy(d + chunk + 36, buf + chunk, len - chunk);
	write_file(seed("fuzz_capfile", "drops.abicap"), d, len + 36);
	d[chunk + 20] ^= 1;
	write_file(seed("fuzz_capfile", "bad-drop.abicap"), d, len + 36);
	free(d);

	/* the Perfetto target's own form: metadata, NUL, the raw records */
	r = capr_open(cap, err, sizeof(err));
	cr_assert(r, "%s", err);
	f = fopen(seed("fuzz_perfetto", "real.meta-records"), "wb");
	cr_assert(f);
	fputs(capr_meta(r), f);
	fputc(0, f);
	while (capr_next(r, &rec) == 1)
		fwrite(&rec, 1, rec.hdr.size, f);
	cr_assert_eq(fclose(f), 0);
	capr_close(r);
	free(buf);
	buf = read_file(seed("fuzz_perfetto", "real.meta-records"), &len);
	write_file(seed("fuzz_capfile", "real.meta-records"), buf, len);
	free(buf);
}
