// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Least privilege, measured: abicap run with capsh holding exactly a set of
 * capabilities (as root with a reduced bounding set, or as user nobody with
 * ambient ones). CAP_BPF + CAP_PERFMON are enough; each one missing is
 * named (exit 3); once attached abicap holds no capability at all; no
 * output shows a kernel address.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "harness.h"
#include "live/features.h"

#define NOBODY 65534

TestSuite(privilege, .init = scratch_init, .fini = scratch_fini,
	  .timeout = 90);

/* capsh's --drop list: every capability but those in keep (comma-separated). */
static void drop_all_but(const char *keep, char *out, size_t len)
{
	size_t n = 0;

	out[0] = 0;
	for (cap_value_t c = 0; c < cap_max_bits(); c++) {
		char *name = cap_to_name(c), padded[64];

		snprintf(padded, sizeof(padded), ",%s,", name);
		if (!strstr(keep, padded))
			n += snprintf(out + n, len - n, "%s%s", n ? "," : "", name);
		cap_free(name);
	}
}

/*
 * argv for abicap under capsh with exactly the capabilities in caps
 * (",cap_bpf,cap_perfmon," style; "," for none): as root, the others
 * dropped from the bounding set; as nobody, caps raised as ambient ones.
 * args ends with NULL; the result is static.
 */
static char **under_capsh(bool as_nobody, const char *caps, char **args)
{
	static char drop[2048], shell[512], set[256], amb[256];
	static char *argv[64];
	int n = 0;

	snprintf(shell, sizeof(shell), "--shell=%s", abicap_bin());
	argv[n++] = "capsh";
	if (as_nobody) {
		/* the caps (trimmed of the outer commas) as ambient ones */
		snprintf(amb, sizeof(amb), "%s", caps + 1);
		if (*amb)
			amb[strlen(amb) - 1] = 0;
		snprintf(set, sizeof(set), "--caps=%s%scap_setuid,cap_setgid,"
			 "cap_setpcap+ep", amb, *amb ? "+eip " : "");
		argv[n++] = set;
		argv[n++] = "--keep=1";
		argv[n++] = "--user=nobody";
		if (*amb) {
			memmove(amb + 9, amb, strlen(amb) + 1);
			memcpy(amb, "--addamb=", 9);
			argv[n++] = amb;
		}
	} else {
		char list[2000];

		drop_all_but(caps, list, sizeof(list));
		snprintf(drop, sizeof(drop), "--drop=%s", list);
		argv[n++] = drop;
	}
	argv[n++] = shell;
	argv[n++] = "--";
	while (*args && n < 63)
		argv[n++] = *args++;
	argv[n] = NULL;
	return argv;
}

#define CAPSH(nobody, caps, ...) \
	run_cmd(under_capsh(nobody, caps, (char *[]){ __VA_ARGS__, NULL }))

static void expect_ok(struct run r, const char *what)
{
	cr_assert_eq(r.code, 0, "%s: exit %d, stderr: %s", what, r.code, r.err);
	cr_assert_null(strstr(r.err, "error"), "%s: %s", what, r.err);
}

/* exit 3 and exactly one line on stderr naming the capability and the fix */
static void expect_missing(struct run r, const char *says)
{
	cr_assert_eq(r.code, 3, "exit %d, stderr: %s", r.code, r.err);
	cr_assert(strstr(r.err, says), "'%s' lacks '%s'", r.err, says);
	cr_assert(strstr(r.err, "grant") || strstr(r.err, "run as root"),
		  "no fix given: %s", r.err);
	cr_assert_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1,
		     "not one line: %s", r.err);
}

/* The trace printed sched_switch events (text format). */
static void expect_events(struct run r)
{
	cr_assert(strstr(r.out, "sched_switch"), "no event: %s", r.err);
}

Test(privilege, full_set_works)
{
	struct run r;

	require_kernel();
	r = run_cmd((char *[]){ (char *)abicap_bin(), "trace", "-d", "1", NULL });
	expect_ok(r, "trace as root");
	expect_events(r);
}

Test(privilege, bpf_and_perfmon_are_enough_for_root)
{
	struct run r;

	require_kernel();
	r = CAPSH(false, ",cap_bpf,cap_perfmon,", "trace", "-d", "1");
	expect_ok(r, "trace with CAP_BPF, CAP_PERFMON");
	expect_events(r);
	r = CAPSH(false, ",cap_bpf,cap_perfmon,", "trace", "-d", "1",
		  "--attach", "raw_tp", "-f", "json");
	expect_ok(r, "trace --attach raw_tp");
	r = CAPSH(false, ",cap_bpf,cap_perfmon,", "record", "-o",
		  scratch_path("min.abicap"), "--", "true");
	expect_ok(r, "record -- true");
}

/* A user that is not root: file access is that user's, capabilities ambient. */
Test(privilege, bpf_and_perfmon_are_enough_for_another_user)
{
	char *dir = scratch_path("nobody"), file[512];
	struct stat st;
	struct run r;

	require_kernel();
	/* the scratch directory is root's 0700: let nobody through to its own */
	cr_assert_eq(chmod(scratch_path("."), 0711), 0);
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(chown(dir, NOBODY, NOBODY), 0);
	snprintf(file, sizeof(file), "%s/n.abicap", dir);
	r = CAPSH(true, ",cap_bpf,cap_perfmon,", "trace", "-d", "1");
	expect_ok(r, "trace as nobody");
	expect_events(r);
	r = CAPSH(true, ",cap_bpf,cap_perfmon,", "record", "-o", file, "-d", "1");
	expect_ok(r, "record as nobody");
	cr_assert_eq(stat(file, &st), 0);
	cr_assert_eq(st.st_uid, NOBODY);
	cr_assert_eq(st.st_mode & 0777, 0600);
	/* with nothing, nobody is told what is missing */
	expect_missing(CAPSH(true, ",", "trace", "-d", "1"),
		       "abicap: error: missing capability CAP_BPF and CAP_PERFMON: ");
}

Test(privilege, each_missing_capability_is_named)
{
	require_kernel();
	expect_missing(CAPSH(false, ",cap_perfmon,", "trace", "-d", "1"),
		       "abicap: error: missing capability CAP_BPF: ");
	expect_missing(CAPSH(false, ",cap_bpf,", "trace", "-d", "1"),
		       "abicap: error: missing capability CAP_PERFMON: ");
	expect_missing(CAPSH(false, ",", "trace", "-d", "1"),
		       "abicap: error: missing capability CAP_BPF and CAP_PERFMON: ");
	expect_missing(CAPSH(false, ",cap_bpf,", "record", "-o",
			     scratch_path("x.abicap"), "-d", "1"),
		       "missing capability CAP_PERFMON: ");
	cr_assert(access(scratch_path("x.abicap"), F_OK), "left a file behind");
}

/*
 * Root in a user namespace of its own (unshare -Ur; a rootless container)
 * holds every capability there and none in the kernel's eyes: trace,
 * record and serve exit 3 naming that (issue 23: exit 4, "give a smaller
 * --buffer-size", serve "a 0 MiB ring buffer"). record leaves no file.
 */
Test(privilege, user_namespace_root_is_missing_privilege)
{
	char *out = scratch_path("ns.abicap");
	struct run r;

	require_kernel();
	r = run_cmd((char *[]){ "unshare", "-Ur", "true", NULL });
	if (r.code)
		test_skip("unshare -Ur fails here (user namespaces are "
			     "disabled): %s", r.err);
	expect_missing(run_cmd((char *[]){ "unshare", "-Ur",
					   (char *)abicap_bin(), "trace", "-d",
					   "1", NULL }),
		       "abicap: error: missing privilege: ");
	r = run_cmd((char *[]){ "unshare", "-Ur", (char *)abicap_bin(), "record",
				"-o", out, "-d", "1", NULL });
	expect_missing(r, "abicap runs in a user namespace");
	cr_assert_null(strstr(r.err, "buffer-size"), "%s", r.err);
	cr_assert(access(out, F_OK), "left a file behind");
	r = run_cmd((char *[]){ "unshare", "-Ur", (char *)abicap_bin(), "serve",
				"--listen", "127.0.0.1:19473", NULL });
	expect_missing(r, "abicap runs in a user namespace");
	cr_assert_null(strstr(r.err, "MiB"), "%s", r.err);
}

/*
 * Perf buffers are locked memory beyond perf_event_mlock_kb per CPU and
 * RLIMIT_MEMLOCK: 16 MB of them need CAP_IPC_LOCK (the ring buffer does not).
 */
Test(privilege, large_perf_buffers_need_ipc_lock)
{
	struct rlimit small = { 1 << 20, 1 << 20 };

	require_kernel();
	cr_assert_eq(setrlimit(RLIMIT_MEMLOCK, &small), 0);
	expect_missing(CAPSH(false, ",cap_bpf,cap_perfmon,", "trace", "-d", "1",
			     "--transport", "perfbuf"),
		       "abicap: error: missing capability CAP_IPC_LOCK: 16 MB "
		       "of perf buffers");
	expect_ok(CAPSH(false, ",cap_bpf,cap_perfmon,cap_ipc_lock,", "trace",
			"-d", "1", "--transport", "perfbuf"), "with CAP_IPC_LOCK");
	expect_ok(CAPSH(false, ",cap_bpf,cap_perfmon,", "trace", "-d", "1",
			"--transport", "perfbuf", "-b", "1"), "1 MB perf buffers");
}

/* The capability lines of /proc/<pid>/status, and whether no_new_privs is set. */
static void expect_no_capability(pid_t pid)
{
	static const char *const sets[] = { "CapInh:", "CapPrm:", "CapEff:",
					    "CapBnd:", "CapAmb:" };
	char path[64], line[256];
	int zero = 0, nnp = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	cr_assert(f, "%s", path);
	while (fgets(line, sizeof(line), f)) {
		for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
			if (!strncmp(line, sets[i], strlen(sets[i]))) {
				cr_expect(strstr(line, "\t0000000000000000"),
					  "still held: %s", line);
				zero++;
			}
		if (!strncmp(line, "NoNewPrivs:", 11))
			nnp = atoi(line + 11);
	}
	fclose(f);
	cr_assert_eq(zero, 5);
	cr_assert_eq(nnp, 1, "no_new_privs not set");
}

/* Events flow after the drop: the ping-pong runs only once it happened. */
Test(privilege, no_capability_is_kept_once_attached)
{
	char *argv[] = { (char *)abicap_bin(), "trace", "-f", "json", "-e",
			 "sched_switch", NULL };
	struct pingpong pp = { 0 };
	char seen[512], *out, *err;
	struct child ch;

	require_kernel();
	spawn(&ch, argv);
	wait_for_stderr(&ch, "abicap: tracing", seen, sizeof(seen));
	expect_no_capability(ch.pid);
	pingpong_run(&pp, 200, 0);
	kill(ch.pid, SIGINT);
	out = read_all(ch.out_fd);
	err = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 10), 0, "%s", err);
	cr_assert(strstr(out, "\"prev_comm\":\"abc_ping\""), "no ping-pong "
		  "switch after the drop; stderr: %s", err);
	/* the summary reads the kernel's counters: still possible */
	cr_assert(strstr(err, "sched_switch"), "%s", err);
	free(out);
	free(err);
}

/*
 * Capabilities are per thread: drain threads started before the drop
 * would keep every one. Each of abicap's threads holds none.
 */
Test(privilege, drain_threads_keep_no_capability)
{
	char n[16], *argv[] = { (char *)abicap_bin(), "trace", "-e",
				"sched_switch", "--drain-threads", n, NULL };
	char seen[512], path[64], *err;
	int ncpus = libbpf_num_possible_cpus(), tasks = 0;
	struct dirent *d;
	struct child ch;
	DIR *dir;

	require_kernel();
	snprintf(n, sizeof(n), "%d", ncpus);
	spawn(&ch, argv);
	wait_for_stderr(&ch, "abicap: tracing", seen, sizeof(seen));
	snprintf(path, sizeof(path), "/proc/%d/task", ch.pid);
	dir = opendir(path);
	cr_assert(dir, "%s", path);
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.') {
			expect_no_capability(atoi(d->d_name));
			tasks++;
		}
	closedir(dir);
	/* the main thread and one drain thread per CPU ring */
	cr_assert_eq(tasks, ncpus + 1, "%d threads", tasks);
	kill(ch.pid, SIGINT);
	free(read_all(ch.out_fd));
	err = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 10), 0, "%s", err);
	free(err);
}

/*
 * record creates its files before attaching: as root without capabilities
 * it could not create one in the directory of the user who ran sudo
 * afterwards, nor (with --force) rename the new file over the old one at
 * the end: a helper that kept CAP_DAC_OVERRIDE does that.
 */
Test(privilege, record_writes_into_another_users_directory)
{
	char *dir = scratch_path("theirs"), file[512], pf[512];
	char *argv[] = { (char *)abicap_bin(), "record", "-o", file,
			 "--perfetto", pf, "--force", NULL };
	char seen[512], *err;
	struct child ch;
	struct stat st;
	FILE *f;

	require_kernel();
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(chown(dir, NOBODY, NOBODY), 0);
	snprintf(file, sizeof(file), "%s/r.abicap", dir);
	snprintf(pf, sizeof(pf), "%s/r.pftrace", dir);
	f = fopen(file, "w");
	cr_assert(f && fputs("old", f) >= 0 && !fclose(f));
	/* as `sudo abicap ...` run by the directory's owner */
	setenv("SUDO_UID", "65534", 1);
	spawn(&ch, argv);
	wait_for_stderr(&ch, "abicap: recording", seen, sizeof(seen));
	expect_no_capability(ch.pid);
	usleep(300000);
	kill(ch.pid, SIGINT);
	read_all(ch.out_fd);
	err = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 10), 0, "%s", err);
	cr_assert_eq(stat(file, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	cr_assert_gt(st.st_size, 100);
	/* theirs, as their directory is: they can report it without sudo */
	cr_expect_eq(st.st_uid, NOBODY, "capture owner %u", (unsigned)st.st_uid);
	cr_assert_eq(stat(pf, &st), 0);
	cr_assert_gt(st.st_size, 0);
	cr_expect_eq(st.st_uid, NOBODY, "trace owner %u", (unsigned)st.st_uid);
	free(err);
	/* nobody else's directory is written into */
	unsetenv("SUDO_UID");
	spawn(&ch, argv);
	err = read_all(ch.err_fd);
	free(read_all(ch.out_fd));
	cr_assert_eq(wait_exit(&ch, 10), 2, "%s", err);
	cr_assert(strstr(err, "belongs to another user (uid 65534)"), "%s", err);
	free(err);
}

/* 0xffff and 12 more hex digits: a kernel address, never shown. */
static void expect_no_kernel_address(const char *what, const char *text)
{
	regex_t re;
	regmatch_t m;

	cr_assert_eq(regcomp(&re, "0x[fF]{4}[0-9a-fA-F]{12}", REG_EXTENDED), 0);
	cr_expect_neq(regexec(&re, text, 1, &m, 0), 0,
		      "%s shows a kernel address: %.40s", what,
		      text + m.rm_so);
	regfree(&re);
}

static void scan(const char *what, struct run r)
{
	expect_no_kernel_address(what, r.out);
	expect_no_kernel_address(what, r.err);
	free(r.out);
	free(r.err);
}

/* A file's bytes as text (NULs as newlines), as a run's stdout. */
static struct run file_as_output(const char *path)
{
	size_t len;
	char *b = read_file(path, &len), *s = malloc(len + 1);

	cr_assert(s);
	for (size_t i = 0; i < len; i++)
		s[i] = b[i] ? b[i] : '\n';
	s[len] = 0;
	free(b);
	return (struct run){ 0, s, strdup("") };
}

/* stderr merged into stdout: -v logs are larger than a pipe's buffer */
#define ABICAP(...) run_cmd((char *[]){ "sh", "-c", "exec \"$0\" \"$@\" 2>&1", \
				    (char *)abicap_bin(), __VA_ARGS__, NULL })

Test(privilege, no_kernel_address_in_any_output)
{
	char *cap = scratch_path("k.abicap"), *snap = scratch_path("s.json");
	struct run r;

	require_kernel();
	scan("trace -v (libbpf's log)", ABICAP("trace", "-v", "-d", "1"));
	scan("trace --json", ABICAP("trace", "-f", "json", "-d", "1",
				    "--attach", "raw_tp", "--transport",
				    "perfbuf", "-b", "1", "-v"));
	r = ABICAP("record", "-o", cap, "-d", "1", "-v");
	cr_assert_eq(r.code, 0, "%s", r.err);
	scan("record -v", r);
	scan("report", ABICAP("report", cap));
	scan("report --format json", ABICAP("report", "-f", "json", cap));
	scan("check", ABICAP("check"));
	scan("check --format json", ABICAP("check", "-f", "json"));
	scan("contract show", ABICAP("contract", "show"));
	r = ABICAP("contract", "snapshot", "-o", snap);
	cr_assert_eq(r.code, 0, "%s", r.err);
	scan("contract snapshot", r);
	scan("the snapshot", file_as_output(snap));
	scan("diff", ABICAP("diff", "/sys/kernel/btf/vmlinux",
			    "/sys/kernel/btf/vmlinux", "--all"));
	scan("diff --format json", ABICAP("diff", "/sys/kernel/btf/vmlinux",
					  "/sys/kernel/btf/vmlinux", "-f", "json"));
	scan("errors", ABICAP("trace", "--contract", "/nonexistent"));
	/* its JSON header and trailer */
	scan("the capture file", file_as_output(cap));
}

static long read_sysctl(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	cr_assert(f, "%s", path);
	cr_assert_eq(fscanf(f, "%ld", &v), 1, "%s", path);
	fclose(f);
	return v;
}

/*
 * The feature probes (live/features.c) against what this kernel (6.18) is
 * known to have: CAP_BPF (5.8+; the highest capability the kernel knows is
 * /proc/sys/kernel/cap_last_cap, 40 here), and bpf(2) on a held map
 * without capabilities even while unprivileged_bpf_disabled is set (6.5+).
 * The kernel matrix's 5.10 guests take the other answers.
 */
Test(privilege, feature_probes_answer_for_this_kernel)
{
	cap_t before, after;

	require_kernel();
	cr_assert(feature_cap_bpf());
	cr_assert_geq(read_sysctl("/proc/sys/kernel/cap_last_cap"), CAP_BPF);
	cr_assert_neq(read_sysctl("/proc/sys/kernel/unprivileged_bpf_disabled"),
		      0, "the probe below would answer yes on any kernel");
	before = cap_get_proc();
	cr_assert_eq(feature_bpf_fd_unprivileged(), 1);
	/* the probe gives back every capability it cleared */
	after = cap_get_proc();
	cr_assert_eq(cap_compare(before, after), 0);
	cap_free(before);
	cap_free(after);
}

/*
 * The README's first example as it went wrong: a capture root recorded
 * (root's, 0600) read by a user. The one line says why and what to do.
 */
Test(privilege, a_capture_the_user_cannot_read_is_explained)
{
	char *file = scratch_path("pp.abicap");
	char *argv[] = { "cp", "tests/fuzz/corpus/fuzz_capfile/real.abicap",
			 file, NULL };
	struct run r;

	require_kernel();
	cr_assert_eq(chmod(scratch_path("."), 0711), 0);
	r = run_cmd(argv);
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_assert_eq(chmod(file, 0600), 0);
	r = CAPSH(true, ",", "report", file);
	cr_assert_eq(r.code, 2, "exit %d: %s", r.code, r.err);
	cr_assert(strstr(r.err, "Permission denied (it belongs to root, mode "
			 "0600): record under sudo into a directory you own "
			 "(the file is then yours), or sudo chown $USER"), "%s", r.err);
	cr_assert_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1,
		     "one line: %s", r.err);
}
