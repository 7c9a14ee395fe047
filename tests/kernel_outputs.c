// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Where outputs go (issue 13), for every command that writes a file:
 * record -o, record --perfetto, export --perfetto, timechart -o,
 * heatmap -o, contract snapshot -o,
 * contract from-object -o. Each is run through the same table of hostile
 * situations: a failing run with --force (the old file must stay byte for
 * byte), an output that is an input or the other output, a symbolic link
 * at each component of the path, a directory another user owns or anyone
 * may write, and a record killed while replacing a file.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "btf_fixture.h"
#include "harness.h"

#define path(n) scratch_path(n)
#define NOBODY 65534
#define OLD "the old contents, which must survive\n"

TestSuite(outputs, .init = scratch_init, .fini = scratch_fini, .timeout = 240);

/*
 * A command that writes @OUT. Tokens: @OUT the output, @CAP a capture,
 * @BTF raw BTF, @OBJ a BPF object, @BAD a file that is none of these,
 * @OTHER another output path.
 */
struct writer {
	const char *name;
	const char *ok[16];	/* writes @OUT, exit 0 */
	const char *fail[16];	/* fails once @OUT was opened (for record: a
				   directory as the command, found when exec
				   fails, after loading) */
	int fail_code;
	const char *same[16];	/* @OUT given as one of its inputs */
};

static const struct writer writers[] = {
	{ "record -o",
	  { "record", "-o", "@OUT", "--force", "-d", "1", "-e", "sched_switch" },
	  { "record", "-o", "@OUT", "--force", "-e", "sched_switch", "--",
	    "/tmp" }, 2,
	  { "record", "-o", "@OUT", "--force", "--perfetto", "@OUT", "-d", "1" } },
	{ "record --perfetto",
	  { "record", "-o", "@OTHER", "--force", "--perfetto", "@OUT", "-d", "1",
	    "-e", "sched_switch" },
	  { "record", "-o", "@OTHER", "--force", "--perfetto", "@OUT", "-e",
	    "sched_switch", "--", "/tmp" }, 2,
	  { "record", "-o", "@OUT", "--force", "--perfetto", "@OUT", "-d", "1" } },
	{ "export --perfetto",
	  { "export", "@CAP", "--perfetto", "@OUT", "--force" },
	  { "export", "@BAD", "--perfetto", "@OUT", "--force" }, 2,
	  { "export", "@OUT", "--perfetto", "@OUT", "--force" } },
	{ "timechart -o",
	  { "timechart", "@CAP", "-o", "@OUT", "--force" },
	  { "timechart", "@BAD", "-o", "@OUT", "--force" }, 2,
	  { "timechart", "@OUT", "-o", "@OUT", "--force" } },
	{ "heatmap -o",
	  { "heatmap", "@CAP", "-o", "@OUT", "--force" },
	  { "heatmap", "@BAD", "-o", "@OUT", "--force" }, 2,
	  { "heatmap", "@OUT", "-o", "@OUT", "--force" } },
	{ "contract snapshot -o",
	  { "contract", "snapshot", "--btf", "@BTF", "-o", "@OUT", "--force" },
	  { "contract", "snapshot", "--btf", "@BAD", "-o", "@OUT", "--force" }, 2,
	  { "contract", "snapshot", "--btf", "@OUT", "-o", "@OUT", "--force" } },
	{ "contract from-object -o",
	  { "contract", "from-object", "@OBJ", "-o", "@OUT", "--force" },
	  { "contract", "from-object", "@BAD", "-o", "@OUT", "--force" }, 2,
	  { "contract", "from-object", "@OUT", "-o", "@OUT", "--force" } },
};
#define NWRITERS (sizeof(writers) / sizeof(writers[0]))

static char cap_in[512], btf_in[512], obj_in[512], bad_in[512];

static void put(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");

	cr_assert(f, "%s", p);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static void copy(const char *from, const char *to)
{
	size_t len;
	char *b = read_file(from, &len);
	FILE *f = fopen(to, "w");

	cr_assert(f, "%s", to);
	cr_assert_eq(fwrite(b, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	free(b);
}

static bool same_content(const char *p, const void *want, size_t wlen)
{
	size_t len;
	char *b = read_file(p, &len);
	bool same = len == wlen && !memcmp(b, want, len);

	free(b);
	return same;
}

/* The inputs every writer may need, made once per test. */
static void make_inputs(void)
{
	struct run r;

	snprintf(cap_in, sizeof(cap_in), "%s", path("in.abicap"));
	snprintf(btf_in, sizeof(btf_in), "%s", path("in.btf"));
	snprintf(obj_in, sizeof(obj_in), "%s", path("in.bpf.o"));
	snprintf(bad_in, sizeof(bad_in), "%s", path("garbage"));
	r = run_cmd((char *[]){ (char *)abicap_bin(), "record", "-o", cap_in,
				"-d", "1", "-e", "sched_switch", NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	kfix_write_raw(&(struct kfix){ 0 }, btf_in);
	copy("build/tests/bpf/t_state_guarded.bpf.o", obj_in);
	put(bad_in, "this is neither a capture, BTF nor an object\n");
}

/* Run tmpl with its tokens replaced; other: the path for @OTHER. */
static struct run run_writer(const char *const *tmpl, const char *out,
			     const char *other)
{
	char *argv[20];
	int n = 0;

	argv[n++] = (char *)abicap_bin();
	for (; *tmpl; tmpl++) {
		const char *t = *tmpl;

		argv[n++] = (char *)(!strcmp(t, "@OUT") ? out :
				     !strcmp(t, "@OTHER") ? other :
				     !strcmp(t, "@CAP") ? cap_in :
				     !strcmp(t, "@BTF") ? btf_in :
				     !strcmp(t, "@OBJ") ? obj_in :
				     !strcmp(t, "@BAD") ? bad_in : t);
	}
	argv[n] = NULL;
	return run_cmd(argv);
}

static void expect_one_error_line(const struct run *r, const char *what)
{
	cr_assert_eq(strncmp(r->err, "abicap: error: ", 15), 0, "%s: %s", what,
		     r->err);
	cr_assert_eq(strchr(r->err, '\n') - r->err, (long)strlen(r->err) - 1,
		     "%s: more than one line: %s", what, r->err);
}

/*
 * (a) A failing run with --force leaves the old file byte for byte, and
 * nothing else beside it; the same with the failure abicap had (exit 4,
 * then the old file gone): -b 4096, now refused up front.
 */
Test(outputs, failing_run_with_force_leaves_the_old_file)
{
	require_kernel();
	make_inputs();
	cr_assert_eq(mkdir(path("a"), 0700), 0);
	for (size_t i = 0; i < NWRITERS; i++) {
		const struct writer *w = &writers[i];
		char *out = path("a/out"), *other = path("other.abicap");
		struct run r;

		put(out, OLD);
		r = run_writer(w->fail, out, other);
		cr_assert_eq(r.code, w->fail_code, "%s: exit %d: %s", w->name,
			     r.code, r.err);
		cr_assert(same_content(out, OLD, strlen(OLD)),
			  "%s: the old file was changed or removed", w->name);
		cr_assert_eq(dir_entries(path("a")), 1, "%s: something was left "
			     "beside the old file", w->name);
		free(r.out);
		free(r.err);
	}
	/* missing capability (exit 3), found after the outputs were opened */
	{
		char *keep = path("a/keep.abicap"), shell[512];
		struct run r;

		put(keep, OLD);
		snprintf(shell, sizeof(shell), "--shell=%s", abicap_bin());
		r = run_cmd((char *[]){ "capsh",
					"--drop=cap_bpf,cap_perfmon,cap_sys_admin",
					shell, "--", "record", "-o", keep, "--force",
					"--perfetto", path("a/keep.pftrace"), NULL });
		cr_assert_eq(r.code, 3, "exit %d: %s", r.code, r.err);
		cr_assert(same_content(keep, OLD, strlen(OLD)));
		cr_assert_eq(dir_entries(path("a")), 2, "something was left");
		free(r.out);
		free(r.err);
	}
	/* the reproducer of the issue: exit 4 and keep.abicap gone */
	{
		char *keep = path("a/keep.abicap");
		struct run r;

		put(keep, OLD);
		r = run_cmd((char *[]){ (char *)abicap_bin(), "record", "-o", keep,
					"--force", "-b", "4096", NULL });
		cr_assert_eq(r.code, 2, "exit %d: %s", r.code, r.err);
		cr_assert(strstr(r.err, "--buffer-size '4096': give megabytes "
				 "from 1 to 2048"), "%s", r.err);
		cr_assert(same_content(keep, OLD, strlen(OLD)));
		free(r.out);
		free(r.err);
	}
}

/* ... and a successful one replaces it: a new 0600 file, nothing left beside. */
Test(outputs, successful_run_with_force_replaces_the_old_file)
{
	require_kernel();
	make_inputs();
	cr_assert_eq(mkdir(path("a"), 0700), 0);
	for (size_t i = 0; i < NWRITERS; i++) {
		const struct writer *w = &writers[i];
		char *out = path("a/out");
		struct stat st;
		struct run r;

		put(out, OLD);
		cr_assert_eq(chmod(out, 0644), 0);
		r = run_writer(w->ok, out, path("other.abicap"));
		cr_assert_eq(r.code, 0, "%s: exit %d: %s", w->name, r.code, r.err);
		cr_assert(!same_content(out, OLD, strlen(OLD)), "%s: not replaced",
			  w->name);
		cr_assert_eq(lstat(out, &st), 0);
		cr_assert(S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600,
			  "%s: mode %o", w->name, st.st_mode);
		cr_assert_eq(dir_entries(path("a")), 1, "%s: a temporary was left",
			     w->name);
		free(r.out);
		free(r.err);
	}
}

/*
 * (b) An output that is an input, or the other output, by the same name,
 * through a hard link, or by another spelling of a name that does not
 * exist yet: refused (exit 2), the input untouched.
 */
Test(outputs, output_that_is_an_input_is_refused)
{
	require_kernel();
	make_inputs();
	for (size_t i = 0; i < NWRITERS; i++) {
		const struct writer *w = &writers[i];
		const char *in = !strcmp(w->same[0], "export") ? cap_in :
				 !strcmp(w->same[1], "snapshot") ? btf_in :
				 !strcmp(w->same[1], "from-object") ? obj_in : cap_in;
		size_t len;
		char *before = read_file(in, &len);
		struct run r = run_writer(w->same, in, NULL);

		cr_assert_eq(r.code, 2, "%s: exit %d: %s", w->name, r.code, r.err);
		cr_assert(strstr(r.err, "is the same file as"), "%s: %s", w->name,
			  r.err);
		cr_assert(same_content(in, before, len), "%s: the input changed",
			  w->name);
		free(r.out);
		free(r.err);
		free(before);
	}
	/* record's contract (-c) is an input too */
	{
		char *con = path("contract.json");
		struct run r = run_cmd((char *[]){ (char *)abicap_bin(), "contract",
						   "show", NULL });
		size_t len;
		char *before;

		put(con, r.out);
		free(r.out);
		free(r.err);
		before = read_file(con, &len);
		r = run_cmd((char *[]){ (char *)abicap_bin(), "record", "-c", con,
					"-o", con, "--force", "-d", "1", NULL });
		cr_assert_eq(r.code, 2, "exit %d: %s", r.code, r.err);
		cr_assert(strstr(r.err, "is the same file as the contract"), "%s",
			  r.err);
		cr_assert(same_content(con, before, len));
		free(before);
		free(r.out);
		free(r.err);
	}
	/* a hard link to the capture as export's output */
	{
		char *ln = path("hard.pftrace");
		size_t len;
		char *before = read_file(cap_in, &len);
		struct run r;

		cr_assert_eq(link(cap_in, ln), 0);
		r = run_cmd((char *[]){ (char *)abicap_bin(), "export", cap_in,
					"--perfetto", ln, "--force", NULL });
		cr_assert_eq(r.code, 2, "exit %d: %s", r.code, r.err);
		cr_assert(same_content(cap_in, before, len));
		free(before);
		free(r.out);
		free(r.err);
	}
	/* record: the two outputs, not there yet, one spelled through '..' */
	{
		struct run r;

		cr_assert_eq(mkdir(path("d"), 0700), 0);
		r = run_cmd((char *[]){ (char *)abicap_bin(), "record", "-o",
					path("x"), "--perfetto", path("d/../x"),
					"-d", "1", NULL });
		cr_assert_eq(r.code, 2, "exit %d: %s", r.code, r.err);
		cr_assert_eq(access(path("x"), F_OK), -1, "a file was written");
		free(r.out);
		free(r.err);
	}
}

/*
 * (c) A symbolic link at each component of the output path (two parent
 * directories and the file itself) pointing at a victim: refused (exit 2),
 * the victim's file and directory unchanged.
 */
Test(outputs, symlink_at_any_component_is_refused)
{
	static const char *const comps[] = { "t/d1", "t/d1/d2", "t/d1/d2/out" };
	static const char *const victims[] = { "v", "v/d2", "v/d2/out" };

	require_kernel();
	make_inputs();
	for (size_t i = 0; i < NWRITERS; i++) {
		for (size_t c = 0; c < 3; c++) {
			const struct writer *w = &writers[i];
			char cmd[1024];
			struct run r;

			snprintf(cmd, sizeof(cmd), "rm -rf %s %s && mkdir -p %s %s "
				 "&& echo -n victim > %s", path("t"), path("v"),
				 path("t/d1/d2"), path("v/d2"), path("v/d2/out"));
			cr_assert_eq(system(cmd), 0);
			snprintf(cmd, sizeof(cmd), "rm -rf %s && ln -s %s %s",
				 path(comps[c]), path(victims[c]), path(comps[c]));
			cr_assert_eq(system(cmd), 0);
			r = run_writer(w->ok, path("t/d1/d2/out"), path("other"));
			cr_assert_eq(r.code, 2, "%s, link at %s: exit %d: %s",
				     w->name, comps[c], r.code, r.err);
			cr_assert(strstr(r.err, "symbolic link"), "%s: %s",
				  w->name, r.err);
			cr_assert(same_content(path("v/d2/out"), "victim", 6),
				  "%s, link at %s: written through", w->name,
				  comps[c]);
			cr_assert_eq(dir_entries(path("v/d2")), 1, "%s, link at %s: "
				     "a file appeared in the victim's directory",
				     w->name, comps[c]);
			cr_assert_eq(access(path("other"), F_OK), -1, "%s: the "
				     "other output was left", w->name);
			free(r.out);
			free(r.err);
		}
	}
}

/*
 * (d) A directory another user owns (they could swap what abicap writes),
 * or that anyone may write without the sticky bit: refused, nothing
 * created. A sticky world-writable one (/tmp) is fine.
 */
Test(outputs, directory_others_control_is_refused)
{
	struct { const char *dir; uid_t uid; mode_t mode; int code; } cases[] = {
		{ "nobodys", NOBODY, 0755, 2 },
		{ "open", 0, 0777, 2 },
		{ "sticky", 0, 01777, 0 },
	};

	require_kernel();
	make_inputs();
	unsetenv("SUDO_UID");
	for (size_t k = 0; k < 3; k++) {
		cr_assert_eq(mkdir(path(cases[k].dir), 0700), 0);
		cr_assert_eq(chown(path(cases[k].dir), cases[k].uid, 0), 0);
		cr_assert_eq(chmod(path(cases[k].dir), cases[k].mode), 0);
	}
	/* the scratch directory is 0700: let nobody's directory be reached */
	cr_assert_eq(chmod(path(""), 0755), 0);
	for (size_t i = 0; i < NWRITERS; i++) {
		for (size_t k = 0; k < 3; k++) {
			const struct writer *w = &writers[i];
			char out[512], cmd[600];
			struct run r;

			snprintf(out, sizeof(out), "%s/out", path(cases[k].dir));
			r = run_writer(w->ok, out, path("other"));
			cr_assert_eq(r.code, cases[k].code, "%s in %s: exit %d: %s",
				     w->name, cases[k].dir, r.code, r.err);
			cr_assert_eq(dir_entries(path(cases[k].dir)), !cases[k].code,
				     "%s in %s", w->name, cases[k].dir);
			if (cases[k].code == 0) {
				snprintf(cmd, sizeof(cmd), "rm -f %s", out);
				cr_assert_eq(system(cmd), 0);
			} else {
				expect_one_error_line(&r, w->name);
			}
			unlink(path("other"));
			free(r.out);
			free(r.err);
		}
	}
}

/*
 * record replacing a file with --force, killed by SIGKILL: the old file
 * is intact and nothing is left beside it (the new file has no name).
 */
Test(outputs, record_killed_while_replacing_leaves_the_old_file)
{
	char *out = path("k/keep.abicap"), seen[4096];
	char *argv[] = { (char *)abicap_bin(), "record", "-o", out, "--force",
			 "-e", "sched_switch", NULL };
	struct child ch;
	int status, n = 0, during;

	require_kernel();
	cr_assert_eq(mkdir(path("k"), 0700), 0);
	put(out, OLD);
	spawn(&ch, argv);
	wait_for_stderr(&ch, "abicap: recording", seen, sizeof(seen));
	during = dir_entries(path("k"));
	/* killed before any assertion: a failing test must not leave it running */
	kill(ch.pid, SIGKILL);
	free(read_all(ch.out_fd));
	free(read_all(ch.err_fd));
	waitpid(ch.pid, &status, 0);
	cr_assert_eq(during, 1, "nothing beside the old file");
	cr_assert(same_content(out, OLD, strlen(OLD)));
	while (dir_entries(path("k")) != 1 && n++ < 100)
		usleep(50000);
	cr_assert_eq(dir_entries(path("k")), 1, "the temporary was left");
}

/*
 * Does pid hold a regular file in the directory out_dir, with data in it
 * (the output being written, whatever its name, or none), but not at the
 * final name (final, in out_dir: the output already published, which a
 * signal can no longer undo)?
 */
static bool writing(pid_t pid, const char *out_dir, const char *final)
{
	char dir[64], p[512], to[1024];
	size_t n = strlen(out_dir);
	struct dirent *e;
	bool yes = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return false;
	while (!yes && (e = readdir(d))) {
		struct stat st;

		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		ssize_t len = readlink(p, to, sizeof(to) - 1);

		if (len <= (ssize_t)n)
			continue;
		to[len] = 0;
		yes = !strncmp(to, out_dir, n) && to[n] == '/' &&
		      strcmp(to + n + 1, final) &&
		      !stat(p, &st) && S_ISREG(st.st_mode) && st.st_size > 0;
	}
	closedir(d);
	return yes;
}

/*
 * Run argv and stop it (SIGSTOP) once it has written part of its output,
 * then send sig: the exit status. A run that finished before it could be
 * stopped (the machine busy elsewhere) is tried again.
 */
static int interrupt_while_writing(char *const argv[], const char *out_dir,
				   const char *final, int sig,
				   void (*reset)(void))
{
	for (int attempt = 0; attempt < 5; attempt++) {
		int status = 0;
		pid_t pid;

		reset();
		pid = fork();
		cr_assert_geq(pid, 0);
		if (!pid) {
			int null = open("/dev/null", O_WRONLY);

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			dup2(null, 1);
			dup2(null, 2);
			execv(argv[0], argv);
			_exit(127);
		}
		while (!writing(pid, out_dir, final) &&
		       !waitpid(pid, &status, WNOHANG))
			usleep(200);
		kill(pid, SIGSTOP);
		cr_assert_eq(waitpid(pid, &status, WUNTRACED), pid);
		if (!WIFSTOPPED(status))
			continue; /* it ended first */
		kill(pid, sig);
		kill(pid, SIGCONT);
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		return status;
	}
	cr_assert_fail("the run ended each time before it could be stopped");
	return -1;
}

static const char *big_out;

static void reset_outputs(void)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "rm -f -- '%s'/x/* '%s'/x/.[!.]*",
		 path(""), path(""));
	cr_assert_eq(system(cmd), 0);
	if (big_out)
		put(big_out, OLD);
}

/*
 * export to a new path, or replacing a file (--force), ended by SIGTERM,
 * SIGHUP, SIGINT or SIGKILL while it writes: nothing at a new path, the
 * old file byte for byte, nothing beside it (issue 23: a truncated trace
 * at the final name; .NAME.<hex>.tmp files piling up with --force).
 */
Test(outputs, export_interrupted_leaves_nothing)
{
	static const int sigs[] = { SIGTERM, SIGHUP, SIGINT, SIGKILL };
	char cap[512], out[512], dir[512];

	snprintf(cap, sizeof(cap), "%s", path("big.abicap"));
	snprintf(out, sizeof(out), "%s", path("x/t.pftrace"));
	cr_assert_eq(run_cmd((char *[]){ "build/capgen", "many-pids", "1000000",
					 cap, NULL }).code, 0);
	cr_assert_eq(mkdir(path("x"), 0700), 0);
	cr_assert(realpath(path("x"), dir));
	for (int force = 0; force < 2; force++) {
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
			char *argv[] = { (char *)abicap_bin(), "export", cap,
					 "--perfetto", out,
					 force ? "--force" : NULL, NULL };
			int st;

			big_out = force ? out : NULL;
			st = interrupt_while_writing(argv, dir, "t.pftrace",
						     sigs[i],
						     reset_outputs);
			cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == sigs[i],
				  "status %#x", st);
			if (force)
				cr_assert(same_content(out, OLD, strlen(OLD)),
					  "signal %d: the old file changed",
					  sigs[i]);
			else
				cr_assert_eq(access(out, F_OK), -1, "signal %d: "
					     "a partial trace at the name",
					     sigs[i]);
			cr_assert_eq(dir_entries(path("x")), force,
				     "force %d signal %d: a temporary was left",
				     force, sigs[i]);
		}
	}
	big_out = NULL;
}

/*
 * record killed as a process group with SIGKILL (what systemd and timeout
 * do at the end), its helper and command with it: an old file as it was
 * and nothing beside it (issue 23: the temporary stayed); a new capture
 * keeps what was recorded (a capture reads back up to its last chunk).
 */
Test(outputs, record_killed_as_a_group_leaves_nothing)
{
	require_kernel();
	cr_assert_eq(mkdir(path("g"), 0700), 0);
	put(path("g/old.abicap"), OLD);
	for (int force = 1; force >= 0; force--) {
		char *out = force ? path("g/old.abicap") : path("g/new.abicap"),
		     seen[4096];
		char *argv[] = { "setsid", (char *)abicap_bin(), "record", "-o",
				 out, "-e", "sched_switch", "--force", "--",
				 "sleep", "100", NULL };
		struct child ch;
		int status;

		spawn(&ch, argv);
		wait_for_stderr(&ch, "abicap: recording", seen, sizeof(seen));
		kill(-ch.pid, SIGKILL);
		free(read_all(ch.out_fd));
		free(read_all(ch.err_fd));
		waitpid(ch.pid, &status, 0);
		cr_assert(same_content(path("g/old.abicap"), OLD, strlen(OLD)));
		cr_assert_eq(access(path("g/new.abicap"), F_OK), force ? -1 : 0,
			     "force %d: a capture lost or made", force);
		/* the helper, killed too, is not this test's child: no wait */
		cr_assert_eq(dir_entries(path("g")), 2 - force, "force %d: a "
			     "temporary was left", force);
	}
}

/*
 * A path with an escape sequence and a newline is named escaped in what a
 * run says it does and did (issue 23: "recording ... to", "wrote N
 * records to", "wrote N events to" printed it raw).
 */
Test(outputs, output_paths_reach_stderr_escaped)
{
	char cap[512], out[512];
	struct run r;

	snprintf(cap, sizeof(cap), "%s", path("e\033[2J\nx.abicap"));
	snprintf(out, sizeof(out), "%s", path("e\033[2J\nx.pftrace"));
	r = run_cmd((char *[]){ "build/capgen", "same-ts", "10", cap, NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "export", cap,
				"--perfetto", out, NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_assert(strstr(r.err, "wrote 10 events to ") &&
		  strstr(r.err, "e\\x1b[2J\\x0ax.pftrace\n"), "%s", r.err);
	cr_assert_null(strchr(r.err, '\033'), "an ESC reached stderr: %s", r.err);
	require_kernel(); /* record; the export above needs no kernel */
	unlink(cap);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "record", "-o", cap, "-d",
				"1", "-e", "sched_switch", NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_assert(strstr(r.err, "recording 1 event to ") &&
		  strstr(r.err, "wrote ") &&
		  strstr(r.err, "e\\x1b[2J\\x0ax.abicap\n"), "%s", r.err);
	cr_assert_null(strchr(r.err, '\033'), "an ESC reached stderr: %s", r.err);
}
