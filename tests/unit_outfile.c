// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Every file abicap writes goes through outfile_open: 0600, a new inode,
 * never through a symbolic link at any component, an old file replaced
 * only at commit, --force never replacing another user's file in
 * /tmp-like directories, an output never an input. And kernel addresses
 * hidden in logs.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cmd/commands.h"
#include "harness.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "lib/bpflog.h"

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

/* Create with force, write text, commit. */
static int create_write(const char *p, bool force, const char *text)
{
	struct outfile of;

	if (outfile_open(&of, p, force, err, sizeof(err)))
		return -1;
	cr_assert_eq(write(of.fd, text, strlen(text)), (ssize_t)strlen(text));
	return outfile_commit(&of, err, sizeof(err));
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
		test_skip("making a file another user's needs root");
	}
	cr_assert_eq(create_write(theirs, true, "x"), -1);
	cr_assert(strstr(err, "belongs to another user (uid 65534) in a shared "
			 "sticky directory"), "%s", err);
	expect_content(theirs, "planted");
	cr_assert_eq(create_write(mine, true, "new"), 0, "%s", err);
	expect_content(mine, "new");
	/* without the sticky bit anyone could swap it: the directory is refused */
	cr_assert_eq(chmod(dir, 0777), 0);
	cr_assert_eq(create_write(theirs, true, "x"), -1);
	cr_assert(strstr(err, "is writable by everyone without the sticky bit"),
		  "%s", err);
	expect_content(theirs, "planted");
}

/* d/cap holding "old", the next file made as without O_TMPFILE if named. */
static void old_in_d(int named)
{
	outfile_no_tmpfile = named;
	cr_assert_eq(mkdir(path("d"), 0700), 0);
	put(path("d/cap"), "old");
}

/*
 * Until commit the old file is untouched; abort leaves it as it was. The
 * new file has no name meanwhile (O_TMPFILE); where the filesystem has no
 * O_TMPFILE (outfile_no_tmpfile), a temporary beside it.
 */
Test(outfile, old_file_replaced_only_at_commit)
{
	for (int named = 0; named < 2; named++) {
		struct outfile of;

		old_in_d(named);
		cr_assert_eq(outfile_open(&of, path("d/cap"), true, err,
					  sizeof(err)), 0, "%s", err);
		cr_assert_eq(write(of.fd, "new", 3), 3);
		expect_content(path("d/cap"), "old");
		cr_assert_eq(dir_entries(path("d")), 1 + named,
			     "named %d: what is beside the old file", named);
		outfile_abort(&of, true); /* keep_partial never replaces */
		expect_content(path("d/cap"), "old");
		cr_assert_eq(dir_entries(path("d")), 1, "the temporary was left");

		cr_assert_eq(outfile_open(&of, path("d/cap"), true, err,
					  sizeof(err)), 0);
		cr_assert_eq(write(of.fd, "new", 3), 3);
		cr_assert_eq(outfile_commit(&of, err, sizeof(err)), 0, "%s", err);
		expect_content(path("d/cap"), "new");
		cr_assert_eq(dir_entries(path("d")), 1);
		unlink(path("d/cap"));
		cr_assert_eq(rmdir(path("d")), 0);
	}
	outfile_no_tmpfile = false;
}

/*
 * A new path shows nothing until commit: a reader, or a run killed
 * meanwhile, never finds a partial file at the name (issue 23). Commit
 * gives it the name only if that is still free.
 */
Test(outfile, new_path_appears_only_at_commit)
{
	for (int named = 0; named < 2; named++) {
		struct outfile of;

		outfile_no_tmpfile = named;
		cr_assert_eq(mkdir(path("d"), 0700), 0);
		cr_assert_eq(outfile_open(&of, path("d/new"), false, err,
					  sizeof(err)), 0, "%s", err);
		cr_assert_eq(write(of.fd, "whole", 5), 5);
		cr_assert_eq(access(path("d/new"), F_OK), -1,
			     "named %d: a partial file at the name", named);
		cr_assert_eq(outfile_commit(&of, err, sizeof(err)), 0, "%s", err);
		expect_content(path("d/new"), "whole");
		cr_assert_eq(dir_entries(path("d")), 1);

		/* someone else's file put at the name meanwhile stays */
		cr_assert_eq(outfile_open(&of, path("d/late"), false, err,
					  sizeof(err)), 0, "%s", err);
		cr_assert_eq(write(of.fd, "mine", 4), 4);
		put(path("d/late"), "theirs");
		cr_assert_eq(outfile_commit(&of, err, sizeof(err)), -1);
		cr_assert(strstr(err, "appeared at that name meanwhile"), "%s",
			  err);
		expect_content(path("d/late"), "theirs");
		cr_assert_eq(dir_entries(path("d")), 2, "named %d", named);
		unlink(path("d/new"));
		unlink(path("d/late"));
		cr_assert_eq(rmdir(path("d")), 0);
	}
	outfile_no_tmpfile = false;
}

/* A process that is gone: its pid, reaped. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid)
		_exit(0);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	return pid;
}

/*
 * Killed by SIGKILL while writing, new path or replacing: nothing at the
 * name, the old file as it was, and nothing left beside it -- with
 * O_TMPFILE at once, without it once the next run for the same path has
 * opened it.
 */
Test(outfile, a_run_killed_leaves_nothing)
{
	for (int named = 0; named < 2; named++) {
		for (int force = 0; force < 2; force++) {
			struct outfile of;
			int status, n;
			pid_t pid;

			outfile_no_tmpfile = named;
			cr_assert_eq(mkdir(path("d"), 0700), 0);
			if (force)
				put(path("d/cap"), "old");
			pid = fork();
			cr_assert_geq(pid, 0);
			if (!pid) {
				if (outfile_open(&of, path("d/cap"), force, err,
						 sizeof(err)) ||
				    write(of.fd, "partial", 7) != 7)
					_exit(1);
				raise(SIGKILL);
				_exit(1);
			}
			cr_assert_eq(waitpid(pid, &status, 0), pid);
			cr_assert(WIFSIGNALED(status), "the child failed");
			n = dir_entries(path("d"));
			if (force)
				expect_content(path("d/cap"), "old");
			else
				cr_assert_eq(access(path("d/cap"), F_OK), -1,
					     "a partial file at the name");
			cr_assert_eq(n, force + named,
				     "named %d force %d: what is left", named,
				     force);
			/* the next run removes what the killed one left */
			cr_assert_eq(outfile_open(&of, path("d/cap"), true, err,
						  sizeof(err)), 0, "%s", err);
			cr_assert_eq(dir_entries(path("d")), force + named,
				     "named %d: the next run's own temporary",
				     named);
			outfile_abort(&of, false);
			cr_assert_eq(dir_entries(path("d")), force,
				     "named %d force %d: a stale temporary",
				     named, force);
			unlink(path("d/cap"));
			cr_assert_eq(rmdir(path("d")), 0);
		}
	}
	outfile_no_tmpfile = false;
}

/*
 * Without O_TMPFILE, a run ended by SIGTERM, SIGHUP, SIGINT or SIGXFSZ
 * (over ulimit -f) while writing removes its temporary on the way out:
 * nothing at a new path, the old file as it was, nothing beside it.
 */
Test(outfile, a_run_ended_by_a_signal_removes_its_temporary)
{
	static const int sigs[] = { SIGTERM, SIGHUP, SIGINT, SIGXFSZ };

	cr_assert_eq(mkdir(path("d"), 0700), 0);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		for (int force = 0; force < 2; force++) {
			struct outfile of;
			int status;
			pid_t pid;

			if (force)
				put(path("d/cap"), "old");
			pid = fork();
			cr_assert_geq(pid, 0);
			if (!pid) {
				/*
				 * as in a shell that does not ignore it (under
				 * nohup SIGHUP is ignored: outfile leaves an
				 * ignored signal ignored, and the run goes on)
				 */
				signal(sigs[i], SIG_DFL);
				outfile_no_tmpfile = true;
				if (outfile_open(&of, path("d/cap"), force, err,
						 sizeof(err)) ||
				    !of.tmp[0] || write(of.fd, "partial", 7) != 7)
					_exit(1);
				raise(sigs[i]);
				_exit(1);
			}
			cr_assert_eq(waitpid(pid, &status, 0), pid);
			cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i],
				  "signal %d: status %#x", sigs[i], status);
			cr_assert_eq(dir_entries(path("d")), force,
				     "signal %d force %d: the temporary was left",
				     sigs[i], force);
			if (force)
				expect_content(path("d/cap"), "old");
			unlink(path("d/cap"));
		}
	}
}

/*
 * What the next run removes is only a temporary of the same path, of the
 * same user, whose process is gone and whose lock nobody holds (a run in
 * another pid namespace): never anything else.
 */
Test(outfile, stale_temporaries_of_others_are_kept)
{
	struct { const char *name; bool removed; } t[] = {
		{ ".cap.%d.0123456789abcdef.tmp", true },
		{ ".cap.%d.0123456789abcdef.tmp.x", false },
		{ ".cap.%d.0123456789ABCDEF.tmp", false },
		{ ".cap.%d.0123456789abcde.tmp", false },
		{ ".cap2.%d.0123456789abcdef.tmp", false },
		{ ".ca.%d.0123456789abcdef.tmp", false },
		{ "cap.%d.0123456789abcdef.tmp", false },
	};
	char name[256], p[512], live[256], locked[256], nobody[256], link[256];
	struct outfile of;
	pid_t dead = dead_pid();
	int lk;

	cr_assert_eq(mkdir(path("d"), 0700), 0);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(name, sizeof(name), t[i].name, (int)dead);
		snprintf(p, sizeof(p), "%s/%s", path("d"), name);
		put(p, "x");
	}
	snprintf(live, sizeof(live), "%s/.cap.%d.1111111111111111.tmp",
		 path("d"), (int)getpid());
	put(live, "live");
	snprintf(locked, sizeof(locked), "%s/.cap.%d.2222222222222222.tmp",
		 path("d"), (int)dead);
	put(locked, "locked");
	lk = open(locked, O_RDONLY);
	cr_assert_eq(flock(lk, LOCK_EX), 0);
	snprintf(nobody, sizeof(nobody), "%s/.cap.%d.3333333333333333.tmp",
		 path("d"), (int)dead);
	put(nobody, "theirs");
	cr_assert_eq(chown(nobody, 65534, 65534), 0);
	snprintf(link, sizeof(link), "%s/.cap.%d.4444444444444444.tmp",
		 path("d"), (int)dead);
	cr_assert_eq(symlink(live, link), 0);

	cr_assert_eq(outfile_open(&of, path("d/cap"), false, err, sizeof(err)),
		     0, "%s", err);
	outfile_abort(&of, false);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(name, sizeof(name), t[i].name, (int)dead);
		snprintf(p, sizeof(p), "%s/%s", path("d"), name);
		cr_assert_eq(access(p, F_OK) != 0, t[i].removed, "%s", name);
	}
	expect_content(live, "live");
	expect_content(locked, "locked");
	expect_content(nobody, "theirs");
	cr_assert_eq(faccessat(AT_FDCWD, link, F_OK, AT_SYMLINK_NOFOLLOW), 0);
	close(lk);
}

/* A new file: abort removes it, unless what was written is to stay. */
Test(outfile, new_file_removed_on_abort_unless_kept)
{
	struct outfile of;

	cr_assert_eq(outfile_open(&of, path("n"), false, err, sizeof(err)), 0);
	outfile_abort(&of, false);
	cr_assert_eq(access(path("n"), F_OK), -1, "not removed");
	cr_assert_eq(outfile_open(&of, path("n"), false, err, sizeof(err)), 0);
	cr_assert_eq(write(of.fd, "part", 4), 4);
	outfile_abort(&of, true);
	expect_content(path("n"), "part");
}

/* abort removes the inode it created, not one put at the name since. */
Test(outfile, abort_never_removes_a_file_put_in_its_place)
{
	struct outfile of;

	cr_assert_eq(outfile_open(&of, path("n"), false, err, sizeof(err)), 0);
	put(path("other"), "someone else's");
	cr_assert_eq(rename(path("other"), path("n")), 0);
	outfile_abort(&of, false);
	expect_content(path("n"), "someone else's");
}

Test(outfile, bad_paths_are_usage_errors)
{
	struct outfile of;

	cr_assert_eq(outfile_open(&of, "", true, err, sizeof(err)), EXIT_USAGE);
	cr_assert(strstr(err, "the output path is empty"), "%s", err);
	cr_assert_eq(mkdir(path("d"), 0700), 0);
	cr_assert_eq(outfile_open(&of, path("d/"), true, err, sizeof(err)),
		     EXIT_USAGE);
	cr_assert(strstr(err, "names a directory"), "%s", err);
	cr_assert_eq(outfile_open(&of, path("nodir/x"), true, err, sizeof(err)),
		     EXIT_USAGE);
	cr_assert(strstr(err, "No such file or directory"), "%s", err);
	put(path("f"), "x");
	cr_assert_eq(outfile_open(&of, path("f/x"), true, err, sizeof(err)),
		     EXIT_USAGE);
}

/* The issue's /tmp/evildir -> /root/victimdir: a link to a parent directory. */
Test(outfile, symlinked_parent_directory_is_refused)
{
	struct outfile of;

	cr_assert_eq(mkdir(path("victim"), 0700), 0);
	put(path("victim/cap"), "victim's");
	cr_assert_eq(symlink(path("victim"), path("evil")), 0);
	cr_assert_eq(outfile_open(&of, path("evil/cap"), true, err, sizeof(err)),
		     EXIT_USAGE);
	cr_assert(strstr(err, "'evil' in the output path") &&
		  strstr(err, "is a symbolic link"), "%s", err);
	expect_content(path("victim/cap"), "victim's");
	cr_assert_eq(dir_entries(path("victim")), 1);
}

Test(outfile, output_that_is_an_input_is_refused)
{
	cr_assert_eq(mkdir(path("d"), 0700), 0);
	put(path("in"), "capture");
	cr_assert_eq(link(path("in"), path("hard")), 0);
	cr_assert_eq(symlink(path("in"), path("soft")), 0);
	cr_assert_eq(outfile_distinct(path("in"), path("in"), "the input", err,
				      sizeof(err)), EXIT_USAGE);
	cr_assert(strstr(err, "is the same file as the input"), "%s", err);
	cr_assert_eq(outfile_distinct(path("hard"), path("in"), "x", err,
				      sizeof(err)), EXIT_USAGE);
	cr_assert_eq(outfile_distinct(path("in"), path("soft"), "x", err,
				      sizeof(err)), EXIT_USAGE);
	/* neither exists: the same directory and name, spelled otherwise */
	cr_assert_eq(outfile_distinct(path("d/../new"), path("new"), "x", err,
				      sizeof(err)), EXIT_USAGE);
	cr_assert_eq(outfile_distinct(path("new"), path("in"), "x", err,
				      sizeof(err)), 0);
	cr_assert_eq(outfile_distinct(path("d/new"), path("new"), "x", err,
				      sizeof(err)), 0);
}

/*
 * Delegated (record drops its privileges): the helper commits, or, when
 * the caller dies without a word, drops the new file: the old file kept, a
 * new path left free. Both killed at once (SIGKILL to the process group):
 * the same, at once or (without O_TMPFILE) at the next run.
 */
Test(outfile, delegated_commit_and_a_dead_caller)
{
	for (int named = 0; named < 2; named++) {
		struct outfile of;

		old_in_d(named);
		cr_assert_eq(outfile_open(&of, path("d/cap"), true, err,
					  sizeof(err)), 0);
		cr_assert_eq(outfile_delegate(&of, err, sizeof(err)), 0, "%s",
			     err);
		cr_assert_eq(write(of.fd, "new", 3), 3);
		cr_assert_eq(outfile_commit(&of, err, sizeof(err)), 0, "%s", err);
		expect_content(path("d/cap"), "new");
		cr_assert_eq(dir_entries(path("d")), 1);

		for (int force = 0; force < 2; force++) {
			const char *p = force ? path("d/cap") : path("d/fresh");

			cr_assert_eq(outfile_open(&of, p, force, err,
						  sizeof(err)), 0);
			cr_assert_eq(outfile_delegate(&of, err, sizeof(err)), 0,
				     "%s", err);
			cr_assert_eq(write(of.fd, "newer", 5), 5);
			cr_assert_eq(dir_entries(path("d")), 1 + named);
			close(of.helper); /* as when the caller is killed */
			cr_assert_eq(waitpid(of.helper_pid, NULL, 0),
				     of.helper_pid);
			close(of.fd);
			close(of.keep);
			close(of.dirfd);
			expect_content(path("d/cap"), "new");
			cr_assert_eq(dir_entries(path("d")), 1,
				     "named %d force %d: the new file was left",
				     named, force);
		}

		/* the caller and its helper killed together */
		cr_assert_eq(outfile_open(&of, path("d/cap"), true, err,
					  sizeof(err)), 0);
		cr_assert_eq(outfile_delegate(&of, err, sizeof(err)), 0, "%s",
			     err);
		kill(of.helper_pid, SIGKILL);
		cr_assert_eq(waitpid(of.helper_pid, NULL, 0), of.helper_pid);
		close(of.helper);
		close(of.fd);
		close(of.keep);
		close(of.dirfd);
		if (named) {
			/* this process lives on: a temporary of a live pid stays */
			char tmp[512];

			snprintf(tmp, sizeof(tmp), "%s/%s", path("d"), of.tmp);
			cr_assert_eq(dir_entries(path("d")), 2);
			cr_assert_eq(unlink(tmp), 0);
		}
		expect_content(path("d/cap"), "new");
		cr_assert_eq(dir_entries(path("d")), 1);
		unlink(path("d/cap"));
		cr_assert_eq(rmdir(path("d")), 0);
	}
	outfile_no_tmpfile = false;
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

/*
 * `sudo abicap record -o pp.abicap` run by a user in their own directory
 * leaves a file that user can read: under sudo (SUDO_UID, SUDO_GID), a
 * file written into a directory the invoking user owns is theirs once
 * committed; anywhere else (root's directories, /tmp) it stays the
 * writer's.
 */
Test(outfile, files_under_sudo_belong_to_the_user_who_ran_sudo)
{
	char *dir = path("home"), p[512], cap[512];
	struct outfile of;
	struct stat st;

	cr_assert_eq(mkdir(dir, 0700), 0);
	if (geteuid() || chown(dir, 65534, 65534))
		test_skip("making a directory another user's needs root");
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	snprintf(p, sizeof(p), "%s/x.json", dir);
	snprintf(cap, sizeof(cap), "%s/pp.abicap", dir);
	cr_assert_eq(create_write(p, false, "x"), 0, "%s", err);
	cr_assert_eq(stat(p, &st), 0);
	cr_expect_eq(st.st_uid, 65534, "owner %u", (unsigned int)st.st_uid);
	cr_expect_eq(st.st_gid, 65534, "group %u", (unsigned int)st.st_gid);
	cr_expect_eq(st.st_mode & 0777, 0600);
	/* replaced with --force: the new file is theirs too */
	cr_assert_eq(create_write(p, true, "y"), 0, "%s", err);
	cr_assert_eq(stat(p, &st), 0);
	cr_expect_eq(st.st_uid, 65534);
	/* a capture, created in place: theirs once committed */
	cr_assert_eq(outfile_open_capture(&of, cap, false, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(outfile_commit(&of, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(stat(cap, &st), 0);
	cr_expect_eq(st.st_uid, 65534, "owner %u", (unsigned int)st.st_uid);
	/* a directory of root's: the file stays root's */
	cr_assert_eq(create_write(path("root.json"), false, "x"), 0, "%s", err);
	cr_assert_eq(stat(path("root.json"), &st), 0);
	cr_expect_eq(st.st_uid, 0);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
}
