// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Reading a kernel's BTF from raw BTF, an ELF vmlinux and a bzImage, and every bad file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "btf_fixture.h"
#include "btf_source.h"
#include "harness.h"
#include "btf_util.h"
#include "util.h"

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
	expect_bad(path("random"), "is not raw BTF, an ELF vmlinux or a bzImage");

	kfix_write_raw(&KFIX_5_10, path("raw.btf"));
	buf = read_file(path("raw.btf"), &len);
	write_file(path("cut.btf"), buf, len / 2);
	expect_bad(path("cut.btf"), "not valid BTF (truncated or corrupt)");
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
