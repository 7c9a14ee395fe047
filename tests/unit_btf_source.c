// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Reading a kernel's BTF from raw BTF, an ELF vmlinux and a bzImage, and every bad file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "btf_fixture.h"
#include "abi/btf_source.h"
#include "harness.h"
#include "abi/btf_util.h"
#include "abi/checker.h"
#include "abi/contract.h"
#include "abi/kernel_id.h"
#include "lib/util.h"

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
	expect_5_10(btf_open(path("raw.btf"), err, sizeof(err)));
}

Test(btf_source, elf_vmlinux_with_btf_section)
{
	kfix_write_elf(&KFIX_5_10, path("vmlinux"));
	expect_5_10(btf_open(path("vmlinux"), err, sizeof(err)));
}

Test(btf_source, bzimage_xz_zstd_gzip_lz4)
{
	static const char *how[] = { "xz", "zstd", "gzip", "lz4" };

	for (int i = 0; i < 4; i++) {
		kfix_write_bzimage(&KFIX_5_10, path(how[i]), how[i]);
		expect_5_10(btf_open(path(how[i]), err, sizeof(err)));
	}
}

Test(btf_source, running_kernel)
{
	struct btf *b;

	if (access("/sys/kernel/btf/vmlinux", R_OK))
		cr_skip_test("this kernel has no BTF");
	b = btf_open(NULL, err, sizeof(err));
	cr_assert(b, "%s", err);
	cr_assert_gt(btf_find_struct(b, "task_struct"), 0);
	btf__free(b);
}

static void expect_bad(const char *file, const char *says)
{
	struct btf *b = btf_open(file, err, sizeof(err));

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
	cr_assert_not(btf_open_kernel_has_no_btf());

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

/* tests/fuzz/corpus/fuzz_btf/regress-name-off.btf: found by fuzz_btf */
Test(btf_source, dangling_names_ids_and_typedef_loops_are_refused)
{
	struct btf *b = btf__new_empty();
	const struct btf_header *h;
	unsigned char *buf;
	const void *raw;
	__u32 len;

	cr_assert_gt(btf__add_typedef(b, "a", 2), 0);
	cr_assert_gt(btf__add_typedef(b, "b", 1), 0); /* a -> b -> a */
	raw = btf__raw_data(b, &len);
	write_file(path("loop.btf"), raw, len);
	expect_bad(path("loop.btf"), "not valid BTF (type [1] starts a loop of "
		   "typedefs, modifiers, pointers or arrays)");

	buf = malloc(len);
	memcpy(buf, raw, len);
	h = (const struct btf_header *)buf;
	/* type [1]'s name_off (its first word) past the string section */
	memcpy(buf + h->hdr_len + h->type_off, &(__u32){ h->str_len + 100 }, 4);
	write_file(path("name.btf"), buf, len);
	expect_bad(path("name.btf"), "type [1] names a string or type that is "
		   "not there");
	free(buf);
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
			expect_5_10(btf_open(path("img"), err, sizeof(err)));
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
			expect_5_10(btf_open(path("img"), err, sizeof(err)));
		}
	/* arm64 vmlinuz before EFI zboot: a gzip'd Image */
	kfix_write_image(&KFIX_5_10, path("Image"), KIMG_ARM64, false, NULL);
	kfix_compress_file(path("Image"), path("Image.gz"), "gzip");
	expect_5_10(btf_open(path("Image.gz"), err, sizeof(err)));
}

/* A kernel image recognised, but built without BTF: said so, naming the kind. */
Test(btf_source, images_without_btf_say_the_kernel_has_no_btf)
{
	for (int kind = KIMG_ARM64; kind <= KIMG_ELF_STRIPPED; kind++) {
		kfix_write_image(NULL, path("img"), kind, kind == KIMG_S390, "xz");
		cr_log_info("%s", kimg_name[kind]);
		expect_bad(path("img"), "without");
		cr_assert(strstr(err, "CONFIG_DEBUG_INFO_BTF=y"), "%s", err);
		cr_assert(btf_open_kernel_has_no_btf(), "%s", err);
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
	struct btf *b = btf_open(file, err, sizeof(err));

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
		expect_5_10(btf_open(path("raw"), err, sizeof(err)));
		write_file(path("cut"), buf, len - 9);
		expect_bad(path("cut"), be ? "starts like raw big-endian BTF" :
			   "starts like raw little-endian BTF");
		free(buf);
	}
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
	btf__free(btf_open(path("img"), err, sizeof(err)));
	cr_assert_str_eq(kernel_id_last()->release, KFIX_RELEASE);
	cr_assert_str_eq(kernel_id_last()->arch, "arm64");
}
