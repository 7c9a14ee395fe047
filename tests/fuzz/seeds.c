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
#include "btf_fixture.h"
#include "capfile/capfile.h"
#include "harness.h"
#include "objfix.h"
#include "event/record.h"
#include "lib/util.h"

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

/* The first block after the header (capfile.h, format 4). */
static size_t first_block(const unsigned char *buf)
{
	cr_assert_eq(le32(buf + 8), CAPFILE_VERSION, "FUZZ_CAPTURE is not a "
		     "capture of this format: record one with this abicap");
	return 16 + le32(buf + 12) + 4;
}

/* The first block with this tag at or after off. */
static size_t find_block(const unsigned char *buf, size_t len, size_t off,
			 const char *tag)
{
	while (off + 20 <= len && memcmp(buf + off, tag, 4))
		off += 20 + le32(buf + off + 8);
	cr_assert(off + 20 <= len, "FUZZ_CAPTURE has no %s block", tag);
	return off;
}

/* A small capture written here with a drop block, and it damaged. */
static void drop_seeds(void)
{
	char err[ERRMSG_LEN], *p = seed("fuzz_capfile", "drops.abicap");
	struct capw *w = capw_open(p, true, "{\"ncpus\":1}", err, sizeof(err));
	union abicap_rec r = { 0 };
	unsigned char *buf;
	size_t len, d;

	cr_assert(w, "%s", err);
	r.sw.hdr = (struct abicap_hdr){ .ts_ns = 1000, .type =
		ABICAP_EV_SCHED_SWITCH, .size = sizeof(r.sw) };
	r.sw.prev_pid = 5;
	r.sw.next_pid = 6;
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	cr_assert_eq(capw_add_drop(w, 1000000, 2000000, 5, -1), 0);
	r.sw.hdr.ts_ns = 3000000;
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	cr_assert_eq(capw_close(w, "{\"events\":{\"sched_switch\":"
				"{\"dropped\":5}}}", err, sizeof(err)), 0);
	buf = read_file(p, &len);
	d = find_block(buf, len, first_block(buf), "DROP");
	buf[d + 20 + 2] ^= 1;
	write_file(seed("fuzz_capfile", "bad-drop.abicap"), buf, len);
	free(buf);
}

Test(seeds, capture)
{
	const char *cap = getenv("FUZZ_CAPTURE");
	union abicap_rec rec;
	unsigned char *buf, *d;
	char err[ERRMSG_LEN];
	struct capr *r;
	size_t len, chunk, next, tail;
	FILE *f;

	cr_assert(cap, "set FUZZ_CAPTURE to a capture (abicap record)");
	buf = read_file(cap, &len);
	chunk = find_block(buf, len, first_block(buf), "CHNK");
	next = chunk + 20 + le32(buf + chunk + 8);
	write_file(seed("fuzz_capfile", "real.abicap"), buf, len);
	write_file(seed("fuzz_perfetto", "real.abicap"), buf, len);
	write_file(seed("fuzz_capfile", "header-only.abicap"), buf, chunk);
	write_file(seed("fuzz_capfile", "cut-in-chunk.abicap"), buf,
		   chunk + (len - chunk) / 2);
	tail = find_block(buf, len, chunk, "TRLR");
	write_file(seed("fuzz_capfile", "no-trailer.abicap"), buf, tail);
	d = malloc(len + (next - chunk));
	cr_assert(d);
	memcpy(d, buf, len);
	d[chunk + 20 + (next - chunk - 20) / 3] ^= 0x40; /* fails its checksum */
	write_file(seed("fuzz_capfile", "bad-crc.abicap"), d, len);
	memcpy(d, buf, len);
	memcpy(d + chunk, "CHNX", 4); /* a damaged block header */
	write_file(seed("fuzz_capfile", "bad-block.abicap"), d, len);
	memcpy(d, buf, len);
	d[tail] ^= 0x01; /* the trailer's first byte */
	write_file(seed("fuzz_capfile", "trailer-flip.abicap"), d, len);
	memcpy(d, buf, len);
	d[8] = CAPFILE_VERSION + 1; /* a later format version */
	write_file(seed("fuzz_capfile", "version-later.abicap"), d, len);
	/* the first chunk twice */
	memcpy(d, buf, next);
	memcpy(d + next, buf + chunk, next - chunk);
	memcpy(d + next + (next - chunk), buf + next, len - next);
	write_file(seed("fuzz_capfile", "dup-chunk.abicap"), d,
		   len + (next - chunk));
	free(d);
	drop_seeds();

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

/*
 * The objects' seeds (fuzz_object): mkseeds.sh copies the test objects
 * there without their DWARF; from the guarded one, the inputs that once
 * crashed check --object and contract from-object (issue 23): a relocation
 * naming type 0xffff, and an access string past its type's members.
 */
Test(seeds, object)
{
	struct objfix f;
	char *src = seed("fuzz_object", "t_state_guarded.bpf");

	objfix_load(&f, src);
	objfix_set(&f, OF_TYPE_ID, 0xffff);
	objfix_write(&f, seed("fuzz_object", "regress-type-id.bpf"));
	objfix_free(&f);
	objfix_load(&f, src);
	objfix_set(&f, OF_TYPE_ID, objfix_type(&f, "task_struct___o"));
	objfix_write(&f, seed("fuzz_object", "regress-access.bpf"));
	objfix_free(&f);
}
