// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Every file abicap writes goes through outfile_create: 0600, a new inode,
 * never through a symbolic link, --force never replacing another user's
 * file in /tmp-like directories. And kernel addresses hidden in logs.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"
#include "harness.h"
#include "outfile.h"
#include "util.h"

#define path(n) scratch_path(n)
static char err[ERRMSG_LEN];

TestSuite(outfile, .init = scratch_init, .fini = scratch_fini);

static void put(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");

	cr_assert(f, "%s", p);
	fputs(text, f);
	fclose(f);
}

/* The file holds exactly text. */
static void expect_content(const char *p, const char *text)
{
	size_t len;
	char *b = read_file(p, &len);

	cr_assert(len == strlen(text) && !memcmp(b, text, len),
		  "%s: '%.*s', not '%s'", p, (int)len, b, text);
	free(b);
}

/* Create with force, write text, close. */
static int create_write(const char *p, bool force, const char *text)
{
	int fd = outfile_create(p, force, err, sizeof(err));

	if (fd < 0)
		return -1;
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return 0;
}

Test(outfile, new_file_is_0600_even_with_a_lax_umask)
{
	struct stat st;
	mode_t old = umask(0);

	cr_assert_eq(create_write(path("new"), false, "x"), 0, "%s", err);
	umask(old);
	cr_assert_eq(stat(path("new"), &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	cr_assert_eq(st.st_uid, geteuid());
}

Test(outfile, existing_file_needs_force_and_is_replaced_by_a_new_0600_one)
{
	struct stat after;

	put(path("old"), "old contents");
	cr_assert_eq(chmod(path("old"), 0644), 0);
	cr_assert_eq(create_write(path("old"), false, "new"), -1);
	cr_assert(strstr(err, "it exists (use --force to replace it)"), "%s", err);
	expect_content(path("old"), "old contents");
	cr_assert_eq(create_write(path("old"), true, "new"), 0, "%s", err);
	cr_assert_eq(stat(path("old"), &after), 0);
	cr_assert_eq(after.st_mode & 0777, 0600);
	expect_content(path("old"), "new");
}

/* A hard link to another file: --force replaces the name, not the file. */
Test(outfile, force_never_writes_through_a_hard_link)
{
	put(path("precious"), "keep me");
	cr_assert_eq(link(path("precious"), path("out")), 0);
	cr_assert_eq(create_write(path("out"), true, "capture"), 0, "%s", err);
	expect_content(path("precious"), "keep me");
	expect_content(path("out"), "capture");
}

Test(outfile, never_through_a_symbolic_link)
{
	put(path("target"), "keep me");
	cr_assert_eq(symlink(path("target"), path("link")), 0);
	cr_assert_eq(symlink(path("nowhere"), path("dangling")), 0);
	for (int force = 0; force < 2; force++) {
		cr_assert_eq(create_write(path("link"), force, "x"), -1);
		cr_assert(strstr(err, "symbolic link"), "%s", err);
		cr_assert_eq(create_write(path("dangling"), force, "x"), -1);
		cr_assert(strstr(err, "symbolic link"), "%s", err);
	}
	expect_content(path("target"), "keep me");
	cr_assert_neq(access(path("nowhere"), F_OK), 0, "created through a link");
}

Test(outfile, force_refuses_what_is_not_a_regular_file)
{
	cr_assert_eq(mkdir(path("dir"), 0700), 0);
	cr_assert_eq(create_write(path("dir"), true, "x"), -1);
	cr_assert(strstr(err, "'") && strstr(err, "is not a regular file: give "
		  "another path"), "%s", err);
}

/*
 * In a world-writable sticky directory (/tmp), a file another user put
 * there under the expected name is theirs: --force leaves it alone. One's
 * own file there is replaced as anywhere.
 */
Test(outfile, force_in_a_sticky_directory_spares_other_users_files)
{
	char *dir = path("tmp"), theirs[512], mine[512];

	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(chmod(dir, 01777), 0);
	snprintf(theirs, sizeof(theirs), "%s/theirs", dir);
	snprintf(mine, sizeof(mine), "%s/mine", dir);
	put(theirs, "planted");
	put(mine, "old");
	if (chown(theirs, 65534, 65534)) {
		cr_assert_eq(errno, EPERM);
		cr_skip_test("making a file another user's needs root");
	}
	cr_assert_eq(create_write(theirs, true, "x"), -1);
	cr_assert(strstr(err, "belongs to another user (uid 65534) in a shared "
			 "sticky directory"), "%s", err);
	expect_content(theirs, "planted");
	cr_assert_eq(create_write(mine, true, "new"), 0, "%s", err);
	expect_content(mine, "new");
	/* the same file outside a sticky directory is replaced (root's choice) */
	cr_assert_eq(chmod(dir, 0777), 0);
	cr_assert_eq(create_write(theirs, true, "x"), 0, "%s", err);
}

static char *redacted(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fputs_redacted(s, f);
	fclose(f);
	return buf;
}

Test(outfile, kernel_addresses_are_hidden_in_logs)
{
	char *r = redacted("(18) r1 = 0xffff8881045e3c00\n"
			   "mask 0xffffffff, 0xffff, x=0xffffffffffffffff end");

	cr_assert_str_eq(r, "(18) r1 = 0x<kernel address>\n"
			 "mask 0xffffffff, 0xffff, x=0x<kernel address> end");
	free(r);
}
