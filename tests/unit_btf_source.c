// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Reading a kernel's BTF from raw BTF, an ELF vmlinux and a bzImage, and every bad file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include <bpf/btf.h>
#include "btf_fixture.h"
#include "abi/btf_source.h"

#include "harness.h"
#include "abi/btf_diff.h"
#include "abi/btf_util.h"
#include "abi/checker.h"
#include "abi/contract.h"
#include "abi/kernel_id.h"
#include "lib/util.h"

/* what each btf_open() was given and found: its budget carries over */
static struct btf_open_info bi;

static char err[ERRMSG_LEN];

#define path(name) scratch_path(name)

/* The 5.10 fixture: task_struct.state exists, __state does not. */
static void expect_5_10(struct btf *b)
{
	__u32 sid;

	cr_assert(b, "%s", err);
	sid = btf_find_struct(b, "task_struct");
	cr_assert_gt(sid, 0);
	cr_assert_gt(btf_find_member(b, sid, "state", NULL), 0);
	cr_assert_eq(btf_find_member(b, sid, "__state", NULL), 0);
	cr_assert_null(btf_trace_proto(b, "cpu_frequency") ? NULL : (void *)1);
	btf__free(b);
}

TestSuite(btf_source, .init = scratch_init, .fini = scratch_fini);

Test(btf_source, raw_btf)
{
	kfix_write_raw(&KFIX_5_10, path("raw.btf"));
	expect_5_10(btf_open(path("raw.btf"), &bi, err, sizeof(err)));
}

Test(btf_source, elf_vmlinux_with_btf_section)
{
	kfix_write_elf(&KFIX_5_10, path("vmlinux"));
	expect_5_10(btf_open(path("vmlinux"), &bi, err, sizeof(err)));
}

Test(btf_source, bzimage_xz_zstd_gzip_lz4)
{
	static const char *how[] = { "xz", "zstd", "gzip", "lz4" };

	for (int i = 0; i < 4; i++) {
		kfix_write_bzimage(&KFIX_5_10, path(how[i]), how[i]);
		expect_5_10(btf_open(path(how[i]), &bi, err, sizeof(err)));
	}
}

Test(btf_source, running_kernel)
{
	struct btf *b;

	if (access("/sys/kernel/btf/vmlinux", R_OK))
		test_skip("this kernel has no BTF (/sys/kernel/btf/vmlinux)");
	b = btf_open(NULL, &bi, err, sizeof(err));
	cr_assert(b, "%s", err);
	cr_assert_gt(btf_find_struct(b, "task_struct"), 0);
	btf__free(b);
}

static void expect_bad(const char *file, const char *says)
{
	struct btf *b = btf_open(file, &bi, err, sizeof(err));

	cr_assert_null(b, "%s accepted", file);
	cr_assert(strstr(err, says), "'%s' lacks '%s'", err, says);
	cr_assert_null(strchr(err, '\n'));
}

Test(btf_source, bad_files_get_one_clear_error)
{
	unsigned char rnd[4096];
	unsigned char *buf;
	size_t len;

	write_file(path("empty"), "", 0);
	expect_bad(path("empty"), "is empty");
	expect_bad(path("missing"), "cannot open BTF file");
	expect_bad("/tmp", "is not a regular file");
	srand(7);
	for (size_t i = 0; i < sizeof(rnd); i++)
		rnd[i] = rand();
	rnd[0] = 0; /* not any magic */
	write_file(path("random"), rnd, sizeof(rnd));
	expect_bad(path("random"), "is neither BTF nor a kernel image abicap reads");
	kfix_compress_file(path("random"), path("random.xz"), "xz");
	expect_bad(path("random.xz"), "decompresses (xz) to neither BTF nor a "
		   "kernel image abicap reads");
	cr_assert_not(bi.no_btf);

	kfix_write_raw(&KFIX_5_10, path("raw.btf"));
	buf = read_file(path("raw.btf"), &len);
	write_file(path("cut.btf"), buf, len / 2);
	expect_bad(path("cut.btf"), "BTF but is not valid BTF (truncated or corrupt)");
	memcpy(rnd, buf, 2); /* BTF magic, then garbage */
	write_file(path("garbage.btf"), rnd, sizeof(rnd));
	expect_bad(path("garbage.btf"), "not valid BTF");
	free(buf);

	kfix_write_elf(&KFIX_5_10, path("vmlinux"));
	buf = read_file(path("vmlinux"), &len);
	write_file(path("cut.elf"), buf, 64);
	expect_bad(path("cut.elf"), "not a readable ELF file");
	free(buf);

	kfix_write_bzimage(&KFIX_5_10, path("bz"), "xz");
	buf = read_file(path("bz"), &len);
	write_file(path("bz.cut"), buf, len - 200);
	expect_bad(path("bz.cut"), "payload lies outside the file");
	buf[1024 + 0x100 + 40] ^= 0xff; /* corrupt the xz stream */
	write_file(path("bz.bad"), buf, len);
	expect_bad(path("bz.bad"), "cannot decompress the xz payload: corrupt");
	memcpy(buf + 1024 + 0x100, "\x89LZO", 4);
	write_file(path("bz.lzo"), buf, len);
	expect_bad(path("bz.lzo"), "compressed with a format abicap does not "
		   "read (it reads gzip, xz, zstd, lz4)");
	free(buf);
}

Test(btf_source, elf_without_btf_names_the_kernel_option)
{
	/* this test binary is an ELF with no .BTF */
	expect_bad("/proc/self/exe", "ELF file without a .BTF section");
	cr_assert(strstr(err, "CONFIG_DEBUG_INFO_BTF=y"));
}

/* b's raw BTF into file with the word `at` bytes into its types made a name offset past the strings. */
static void write_dangling(const struct btf *b, const char *file, size_t at)
{
	const struct btf_header *h;
	unsigned char *buf;
	const void *raw;
	__u32 len;

	raw = btf__raw_data((struct btf *)b, &len);
	buf = malloc(len);
	memcpy(buf, raw, len);
	h = (const struct btf_header *)buf;
	memcpy(buf + h->hdr_len + h->type_off + at, &(__u32){ h->str_len + 100 }, 4);
	write_file(file, buf, len);
	free(buf);
}

/* tests/fuzz/corpus/fuzz_btf/regress-name-off.btf: found by fuzz_btf */
Test(btf_source, dangling_names_ids_and_typedef_loops_are_refused)
{
	struct btf *b = btf__new_empty();
	const void *raw;
	__u32 len;

	cr_assert_gt(btf__add_typedef(b, "a", 2), 0);
	cr_assert_gt(btf__add_typedef(b, "b", 1), 0); /* a -> b -> a */
	raw = btf__raw_data(b, &len);
	write_file(path("loop.btf"), raw, len);
	expect_bad(path("loop.btf"), "not valid BTF (type [1] starts a loop of "
		   "typedefs, modifiers, pointers or arrays)");

	/* type [1]'s name_off (its first word) past the string section */
	write_dangling(b, path("name.btf"), 0);
	expect_bad(path("name.btf"), "type [1] names a string or type that is "
		   "not there");
	btf__free(b);

	b = btf__new_empty();
	cr_assert_gt(btf__add_typedef(b, "c", 99), 0);
	raw = btf__raw_data(b, &len);
	write_file(path("id.btf"), raw, len);
	expect_bad(path("id.btf"), "type [1] names a string or type that is "
		   "not there");
	btf__free(b);
}

static const char *const kimg_name[] = {
	[KIMG_ARM64] = "arm64 Image", [KIMG_RISCV64] = "riscv64 Image",
	[KIMG_ZBOOT] = "EFI zboot", [KIMG_ZIMAGE] = "armhf zImage",
	[KIMG_S390] = "s390x image", [KIMG_ELF_S390] = "s390x ELF",
	[KIMG_ELF_STRIPPED] = "ELF vmlinux (no section table)",
};

/* Every boot image format Debian ships, in both byte orders: the kernel's BTF, not the decoy's. */
Test(btf_source, boot_images_of_every_architecture_in_both_byte_orders)
{
	for (int kind = KIMG_ARM64; kind <= KIMG_ELF_STRIPPED; kind++)
		for (int be = 0; be < 2; be++) {
			kfix_write_image(&KFIX_5_10, path("img"), kind, be, "gzip");
			cr_log_info("%s, %s-endian", kimg_name[kind],
				    be ? "big" : "little");
			expect_5_10(btf_open(path("img"), &bi, err, sizeof(err)));
		}
}

Test(btf_source, compressed_payloads_of_every_kind)
{
	static const char *how[] = { "gzip", "xz", "zstd", "lz4" };
	static const int kinds[] = { KIMG_ZBOOT, KIMG_ZIMAGE, KIMG_S390 };

	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 4; i++) {
			kfix_write_image(&KFIX_5_10, path("img"), kinds[k],
					 kinds[k] == KIMG_S390, how[i]);
			cr_log_info("%s (%s)", kimg_name[kinds[k]], how[i]);
			expect_5_10(btf_open(path("img"), &bi, err, sizeof(err)));
		}
	/* arm64 vmlinuz before EFI zboot: a gzip'd Image */
	kfix_write_image(&KFIX_5_10, path("Image"), KIMG_ARM64, false, NULL);
	kfix_compress_file(path("Image"), path("Image.gz"), "gzip");
	expect_5_10(btf_open(path("Image.gz"), &bi, err, sizeof(err)));
}

/* A kernel image recognised, but built without BTF: said so, naming the kind. */
Test(btf_source, images_without_btf_say_the_kernel_has_no_btf)
{
	for (int kind = KIMG_ARM64; kind <= KIMG_ELF_STRIPPED; kind++) {
		kfix_write_image(NULL, path("img"), kind, kind == KIMG_S390, "xz");
		cr_log_info("%s", kimg_name[kind]);
		expect_bad(path("img"), "without");
		cr_assert(strstr(err, "CONFIG_DEBUG_INFO_BTF=y"), "%s", err);
		cr_assert(bi.no_btf, "%s", err);
		cr_assert_null(strstr(err, "neither BTF nor a kernel image"), "%s",
			       err);
	}
	kfix_write_image(NULL, path("img"), KIMG_ZIMAGE, false, "xz");
	expect_bad(path("img"), "is a kernel image (armhf zImage (xz)) without "
		   "BTF");
	kfix_write_image(NULL, path("img"), KIMG_ELF_S390, true, NULL);
	expect_bad(path("img"), "s390x ELF file without a .BTF section");
}

static void verdicts(const char *file, struct check_result *res)
{
	struct contract *c = contract_default(err, sizeof(err));
	struct btf *b = btf_open(file, &bi, err, sizeof(err));

	cr_assert(c && b, "%s", err);
	cr_assert_eq(contract_check(c, b, res), 0);
	btf__free(b);
	contract_free(c);
}

/* s390x: big-endian BTF gives the verdicts, actual types included, of the same kernel little-endian. */
Test(btf_source, big_endian_btf_gives_the_same_verdicts)
{
	struct check_result le, be;

	kfix_write_image(&KFIX_5_10, path("le"), KIMG_S390, false, "gzip");
	kfix_write_image(&KFIX_5_10, path("be"), KIMG_S390, true, "gzip");
	verdicts(path("le"), &le);
	verdicts(path("be"), &be);
	cr_assert_eq(le.n, be.n);
	cr_assert_gt(le.count[V_DEGRADED] + le.count[V_BROKEN], 0);
	for (int i = 0; i < le.n; i++) {
		cr_assert_eq(le.v[i].status, be.v[i].status, "%s", le.v[i].item);
		cr_assert_str_eq(le.v[i].actual, be.v[i].actual);
	}
	check_result_free(&le);
	check_result_free(&be);
}

Test(btf_source, raw_btf_in_both_byte_orders)
{
	unsigned char *buf;
	size_t len;

	for (int be = 0; be < 2; be++) {
		kfix_write_image(&KFIX_5_10, path("raw"), KIMG_RAW, be, NULL);
		buf = read_file(path("raw"), &len);
		cr_assert_eq(buf[0], be ? 0xeb : 0x9f);
		expect_5_10(btf_open(path("raw"), &bi, err, sizeof(err)));
		write_file(path("cut"), buf, len - 9);
		expect_bad(path("cut"), be ? "starts like raw big-endian BTF" :
			   "starts like raw little-endian BTF");
		free(buf);
	}
}

/*
 * Issue 23: a 100-byte BTF whose task_struct has N anonymous members of
 * type task_struct itself passed the well-formedness check, and the
 * anonymous-member lookup went 16 levels deep down every one of them (N=3:
 * 26 s, N=4: over a minute). A struct that contains itself by value is
 * not C: refused as not valid BTF, at once, whatever N.
 */
Test(btf_source, a_struct_containing_itself_is_refused, .timeout = 60)
{
	static const int ns[] = { 1, 3, 4, 8 };

	for (int k = 0; k < 4; k++) {
		struct btf *b = btf__new_empty();
		const void *raw;
		__u32 len;
		int ts;

		ts = btf__add_struct(b, "task_struct", 8);
		cr_assert_gt(ts, 0);
		for (int i = 0; i < ns[k]; i++)
			cr_assert_eq(btf__add_field(b, NULL, ts, 0, 0), 0);
		raw = btf__raw_data(b, &len);
		write_file(path("self.btf"), raw, len);
		btf__free(b);
		expect_bad(path("self.btf"), "not valid BTF (type [1] (struct "
			   "task_struct) holds itself by value)");
	}
}

/*
 * Without a loop, anonymous members can still multiply the paths: 24
 * structs, each holding the next 4 times as an anonymous member, give 4^16
 * paths to the depth the lookup follows. Every member looked up must be
 * found or missed visiting each struct once: the default contract's
 * verdicts come in time (a hang guard only), with the fields the contract
 * wants reported missing.
 */
Test(btf_source, anonymous_members_are_looked_through_once_each, .timeout = 60)
{
	struct contract *c = contract_default(err, sizeof(err));
	struct check_result res;
	struct btf *b = btf__new_empty();
	const void *raw;
	__u32 len;
	int next = 0, ts, found = 0;

	cr_assert(c, "%s", err);
	cr_assert_gt(btf__add_int(b, "int", 4, BTF_INT_SIGNED), 0);
	for (int level = 0; level < 24; level++) {
		int s = btf__add_struct(b, NULL, 4);

		cr_assert_gt(s, 0);
		for (int i = 0; i < 4; i++)
			cr_assert_eq(btf__add_field(b, NULL, next ? next : 1, 0,
						    0), 0);
		next = s;
	}
	ts = btf__add_struct(b, "task_struct", 4);
	cr_assert_gt(ts, 0);
	cr_assert_eq(btf__add_field(b, NULL, next, 0, 0), 0);
	cr_assert_eq(btf__add_field(b, "pid", 1, 0, 0), 0);
	raw = btf__raw_data(b, &len);
	write_file(path("wide.btf"), raw, len);
	btf__free(b);

	b = btf_open(path("wide.btf"), &bi, err, sizeof(err));
	cr_assert(b, "%s", err);
	cr_assert_eq(btf_find_member(b, btf_find_struct(b, "task_struct"),
				     "__state", NULL), 0);
	cr_assert_eq(contract_check(c, b, &res), 0);
	for (int i = 0; i < res.n; i++)
		if (!strcmp(res.v[i].item, "__state")) {
			found = 1;
			cr_assert_neq(res.v[i].status, V_OK);
		}
	cr_assert(found, "no verdict on task_struct.__state");
	check_result_free(&res);
	btf__free(b);
	contract_free(c);
}

/* An armhf zImage header, then n copies of `in` compressed with zstd, one frame each. */
static unsigned char *zimage_of(const void *in, size_t len, int n,
				size_t *out_len)
{
	size_t cap = ZSTD_compressBound(len), flen;
	unsigned char *frame = malloc(cap), *img;

	flen = ZSTD_compress(frame, cap, in, len, 1);
	cr_assert_not(ZSTD_isError(flen));
	img = calloc(1, 64 + n * flen);
	memcpy(img + 0x24, "\x18\x28\x6f\x01", 4);
	for (int i = 0; i < n; i++)
		memcpy(img + 64 + i * flen, frame, flen);
	*out_len = 64 + n * flen;
	free(frame);
	return img;
}

/*
 * Issue 23: a zImage of 64 zstd streams, each a zImage of 64 streams of
 * about 1 GiB, made check --btf decompress 4,096 GiB (each layer tried 64
 * candidates, each up to 1 GiB). One budget holds for the whole file:
 * three layers of 8 give 584 streams; the 65th is refused before it is
 * decompressed, with the budget named.
 */
Test(btf_source, nested_stream_bomb_stops_at_the_budget, .timeout = 60)
{
	static unsigned char zeros[4096];
	unsigned char *l1, *l2, *l3;
	size_t n1, n2, n3;
	struct btf_budget spent;

	l3 = zimage_of(zeros, sizeof(zeros), 8, &n3);
	l2 = zimage_of(l3, n3, 8, &n2);
	l1 = zimage_of(l2, n2, 8, &n1);
	write_file(path("bomb"), l1, n1);
	expect_bad(path("bomb"), "needs more than abicap's budget for one file "
		   "(1024 MiB decompressed, 64 decompressions, 3 layers, 256 "
		   "MiB of BTF parsed, a stream 32 times its size; here: more "
		   "than 64 decompressions)");
	cr_assert_not(bi.no_btf);
	spent = bi.spent;
	cr_assert_eq(spent.streams, 64);
	cr_assert_leq(spent.bytes, 64 * (n2 + sizeof(zeros)));
	free(l1);
	free(l2);
	free(l3);
}

/*
 * A stream decompresses to at most 32 times its size and 1 MiB (issue 37:
 * a 524-byte zImage was refused only after 1.04 GB and 6 s): 64 MiB of
 * zeros in a frame of a few KB stops near 1 MiB, the budget named.
 */
Test(btf_source, a_stream_is_bounded_by_its_size, .timeout = 60)
{
	size_t len = 64u << 20, n;
	unsigned char *zeros = calloc(1, len), *img = zimage_of(zeros, len, 1, &n);
	struct btf_budget spent;

	write_file(path("ratio"), img, n);
	expect_bad(path("ratio"), "here: a stream decompressing to more than "
		   "32 times its size and 1 MiB)");
	spent = bi.spent;
	cr_assert_eq(spent.streams, 1);
	cr_assert_leq(spent.bytes, 32 * (n - 64) + (1u << 20), "%llu bytes "
		      "from a %zu-byte stream", spent.bytes, n - 64);
	free(zeros);
	free(img);
}

/* Bytes count across streams and layers: with a 64 MiB budget, two 40 MiB streams are one too many. */
Test(btf_source, decompressed_bytes_count_across_streams, .timeout = 60)
{
	struct btf_budget b = { 64ull << 20, 64, 256ull << 20, 0 }, spent;
	size_t len = 40u << 20, n;
	unsigned char *zeros = calloc(1, len), *img = zimage_of(zeros, len, 2, &n);

	write_file(path("two"), img, n);
	bi.budget = b;
	expect_bad(path("two"), "here: more than 64 MiB decompressed)");
	spent = bi.spent;
	cr_assert_eq(spent.streams, 2);
	cr_assert_leq(spent.bytes, 64ull << 20);
	cr_assert_geq(spent.bytes, 40ull << 20);
	/* one stream fits: the image is read, and said to have no BTF */
	write_file(path("one"), img, n - (n - 64) / 2);
	expect_bad(path("one"), "is a kernel image (armhf zImage (zstd)) without "
		   "BTF");
	spent = bi.spent;
	cr_assert_eq(spent.streams, 1);
	cr_assert_eq(spent.bytes, len);
	free(zeros);
	free(img);
}

/* What a stream gives before it turns out corrupt counts as well. */
Test(btf_source, corrupt_streams_count_what_they_gave, .timeout = 60)
{
	struct btf_budget b = { 64ull << 20, 64, 256ull << 20, 0 }, spent;
	size_t len = 40u << 20, cap = ZSTD_compressBound(len), flen;
	unsigned char *zeros = calloc(1, len), *frame = malloc(cap), *img;

	flen = ZSTD_compress(frame, cap, zeros, len, 1);
	cr_assert_not(ZSTD_isError(flen));
	flen -= 2; /* each frame cut short: corrupt after most of its 40 MiB */
	img = calloc(1, 64 + 2 * flen);
	memcpy(img + 0x24, "\x18\x28\x6f\x01", 4);
	memcpy(img + 64, frame, flen);
	memcpy(img + 64 + flen, frame, flen);
	write_file(path("cut"), img, 64 + 2 * flen);
	bi.budget = b;
	expect_bad(path("cut"), "here: more than 64 MiB decompressed)");
	spent = bi.spent;
	cr_assert_eq(spent.streams, 2);
	free(zeros);
	free(frame);
	free(img);
}

/* Layers are counted before decompressing: a fourth is refused without being opened. */
Test(btf_source, a_fourth_layer_is_refused_before_it_is_decompressed)
{
	struct btf_budget spent;

	kfix_write_image(&KFIX_5_10, path("Image"), KIMG_ARM64, false, NULL);
	kfix_compress_file(path("Image"), path("1"), "zstd");
	kfix_compress_file(path("1"), path("2"), "gzip");
	kfix_compress_file(path("2"), path("3"), "xz");
	expect_5_10(btf_open(path("3"), &bi, err, sizeof(err)));
	kfix_compress_file(path("3"), path("4"), "zstd");
	expect_bad(path("4"), "compressed more than 3 times over");
	spent = bi.spent;
	cr_assert_eq(spent.streams, 3);
}

/* Raw BTF larger than any kernel's is not parsed. */
Test(btf_source, raw_btf_past_the_budget_is_not_parsed)
{
	struct btf_budget b = { 1ull << 30, 64, 64, 32 }, spent;

	kfix_write_raw(&KFIX_5_10, path("raw.btf"));
	bi.budget = b;
	expect_bad(path("raw.btf"), "here: more than 64 bytes of BTF parsed)");
	spent = bi.spent;
	cr_assert_eq(spent.btf_bytes, 0);
}

/*
 * diff --all looked each tracepoint and record up by name, a scan of every
 * type per name, and compared record fields with a cubic loop: a 2.9 MB
 * BTF of 100,000 tracepoints ran past 2 minutes. Both kernels' names are
 * now sorted and merged once, fields found by binary search. Hang guard
 * only: the verdicts are what is asserted.
 */
Test(btf_source, diff_all_is_linear_in_the_names, .timeout = 60)
{
	struct btf *o = btf__new_empty(), *n = btf__new_empty();
	struct diff d = { 0 };
	int io, in, so, sn, total;
	char name[64];

	io = btf__add_int(o, "int", 4, BTF_INT_SIGNED);
	in = btf__add_int(n, "int", 4, BTF_INT_SIGNED);
	for (int i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "btf_trace_t%d", i);
		cr_assert_gt(btf__add_typedef(o, name, io), 0);
		cr_assert_gt(btf__add_typedef(n, name, in), 0);
	}
	/* old: f0..f19999; new: g0..g19999, then f0: every g inserted */
	so = btf__add_struct(o, "trace_event_raw_big", 4);
	for (int i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		cr_assert_eq(btf__add_field(o, name, io, 0, 0), 0);
	}
	sn = btf__add_struct(n, "trace_event_raw_big", 4);
	for (int i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		cr_assert_eq(btf__add_field(n, name, in, 0, 0), 0);
	}
	cr_assert_eq(btf__add_field(n, "f0", in, 0, 0), 0);
	cr_assert_gt(so, 0);
	cr_assert_gt(sn, 0);
	total = diff_all(&d, o, n);
	cr_assert_eq(total, 100001);
	/* 19,999 old fields deleted, f0 moved, 20,000 new inserted */
	cr_assert_eq(d.breaking, 40000);
	cr_assert_eq(d.compatible, 0);
	cr_assert_str_eq(d.v[d.n - 1].kind, "inserted before the end");
	free(d.v);
	btf__free(o);
	btf__free(n);
}

/* An enumerator named past the strings (found by fuzz_object in an object's BTF): refused. */
Test(btf_source, a_dangling_enumerator_name_is_refused)
{
	struct btf *b = btf__new_empty();

	cr_assert_gt(btf__add_enum(b, "e", 4), 0);
	cr_assert_eq(btf__add_enum_value(b, "A", 1), 0);
	/* the enumerator's name_off: after type [1]'s 12-byte header */
	write_dangling(b, path("enum.btf"), 12);
	expect_bad(path("enum.btf"), "not valid BTF (type [1] names a string or "
		   "type that is not there)");
	btf__free(b);
}

/*
 * A contract's structs and tracepoints were each looked up by a scan of
 * every kernel type: 20,000 fields on structs a kernel lacks took 25 s
 * against the running kernel. Now one index per check; hang guard only,
 * the verdicts are asserted.
 */
Test(btf_source, a_large_contract_is_checked_by_index, .timeout = 30)
{
	struct btf *b = btf__new_empty();
	struct check_result res;
	struct contract *c;
	size_t cap = 64 << 20, len = 0;
	char *json = malloc(cap), name[32];
	int in = btf__add_int(b, "int", 4, BTF_INT_SIGNED);

	for (int i = 0; i < 200000; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		cr_assert_gt(btf__add_struct(b, name, 4), 0);
		cr_assert_eq(btf__add_field(b, "x", in, 0, 0), 0);
	}
	len += snprintf(json + len, cap - len, "{\"abicap_contract\": 1, "
			"\"name\": \"big\", \"events\": [{\"name\": \"cpu_idle\", "
			"\"group\": \"power\", \"args\": []}], \"fields\": [");
	for (int i = 0; i < 50000; i++)
		len += snprintf(json + len, cap - len, "%s{\"struct\": \"t%d\", "
				"\"field\": \"x\", \"type\": \"s32\", "
				"\"required\": false, \"events\": [], "
				"\"feeds\": \"-\"}", i ? "," : "", i);
	len += snprintf(json + len, cap - len, "]}");
	c = contract_parse(json, len, "big", err, sizeof(err));
	cr_assert(c, "%s", err);
	cr_assert_eq(contract_check(c, b, &res), 0);
	cr_assert_eq(res.n, 50001);
	cr_assert_eq(res.v[50000].status, V_DEGRADED);
	cr_assert_str_eq(res.v[50000].actual, "no struct t49999");
	check_result_free(&res);
	contract_free(c);
	btf__free(b);
	free(json);
}

/* The release is the banner's, never a format string's or a cut one's. */
Test(btf_source, kernel_banner_names_the_release)
{
	static const char img[] = "xx Linux version %s (%s)\0 Linux version "
				  "notdigit y\0Linux version 6.12.118+deb13-rt-amd64 "
				  "(debian-kernel@lists.debian.org) #1 SMP\n";
	static const char cut[] = "Linux version 6.1.0-57-amd64";
	char rel[65] = "";

	cr_assert(kernel_banner(img, sizeof(img), rel, sizeof(rel)));
	cr_assert_str_eq(rel, "6.12.118+deb13-rt-amd64");
	cr_assert_not(kernel_banner(cut, strlen(cut), rel, sizeof(rel)));
	cr_assert_not(kernel_banner("", 0, rel, sizeof(rel)));
	kfix_write_image(&(struct kfix){ 0 }, path("img"), KIMG_ZBOOT, false, "zstd");
	btf__free(btf_open(path("img"), &bi, err, sizeof(err)));
	cr_assert_str_eq(bi.kid.release, KFIX_RELEASE);
	cr_assert_str_eq(bi.kid.arch, "arm64");
}
