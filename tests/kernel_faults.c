// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Faults a production host meets: nothing of abicap left in the kernel after
 * any exit, two instances at once, a disk that fills up while recording.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "btf_fixture.h"
#include "capfile.h"
#include "harness.h"
#include "util.h"

#define path(n) scratch_path(n)

TestSuite(faults, .init = scratch_init, .fini = scratch_fini, .timeout = 90);

/* abicap's programs loaded in the kernel now (bpftool names them *_sched_*, *_cpu_*). */
static int our_progs(void)
{
	FILE *p = popen("bpftool prog show 2>/dev/null | grep -cE "
			"'name (tp_btf|raw_tp)_(sched|cpu)'", "r");
	int n = -1;

	cr_assert(p);
	cr_assert_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

/* Programs are freed when their last reference goes: wait for it, 5 s at most. */
static int progs_after_exit(void)
{
	for (int i = 0; i < 50 && our_progs(); i++)
		usleep(100000);
	return our_progs();
}

static void run_and_end(int sig)
{
	char *argv[] = { (char *)abicap_bin(), "trace", "-f", "json", NULL };
	char seen[4096];
	struct child ch;
	int status;

	spawn(&ch, argv);
	wait_for_stderr(&ch, "abicap: tracing", seen, sizeof(seen));
	cr_assert_gt(our_progs(), 0, "the programs are not loaded while tracing");
	kill(ch.pid, sig);
	free(read_all(ch.out_fd));
	free(read_all(ch.err_fd));
	waitpid(ch.pid, &status, 0);
}

Test(faults, nothing_left_in_the_kernel_after_any_exit)
{
	int before;

	require_kernel();
	before = our_progs();
	cr_assert_eq(before, 0, "abicap programs loaded before the test");
	run_and_end(SIGINT);
	cr_assert_eq(progs_after_exit(), 0, "left after SIGINT");
	run_and_end(SIGTERM);
	cr_assert_eq(progs_after_exit(), 0, "left after SIGTERM");
	run_and_end(SIGKILL);
	cr_assert_eq(progs_after_exit(), 0, "left after SIGKILL");
}

Test(faults, two_instances_at_once)
{
	char pid[16], seen[4096];
	char *argv[] = { (char *)abicap_bin(), "trace", "-f", "json", "-p", pid,
			 "-d", "2", NULL };
	struct child a, b;
	struct pingpong pp;
	char *oa, *ob;

	require_kernel();
	snprintf(pid, sizeof(pid), "%d", getpid());
	spawn(&a, argv);
	spawn(&b, argv);
	wait_for_stderr(&a, "abicap: tracing", seen, sizeof(seen));
	wait_for_stderr(&b, "abicap: tracing", seen, sizeof(seen));
	pingpong_run(&pp, 500, 0);
	oa = read_all(a.out_fd);
	ob = read_all(b.out_fd);
	free(read_all(a.err_fd));
	free(read_all(b.err_fd));
	cr_assert_eq(wait_exit(&a, 30), 0);
	cr_assert_eq(wait_exit(&b, 30), 0);
	cr_assert(strstr(oa, "\"abc_ping\"") && strstr(ob, "\"abc_ping\""),
		  "both instances see the workload");
	free(oa);
	free(ob);
}

/* Has it exited? (without reaping it: wait_exit() wants its status) */
static bool exited(pid_t pid)
{
	siginfo_t si = { 0 };

	return !waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
	       si.si_pid == pid;
}

Test(faults, full_disk_while_recording)
{
	char *dir = path("tiny"), *file = path("tiny/x.abicap");
	char *argv[] = { (char *)abicap_bin(), "record", "-o", file, "-e",
			 "sched_switch,sched_wakeup", NULL };
	char seen[4096], *err;
	struct child ch;
	struct pingpong pp;
	struct capr *r;
	union abicap_rec rec;
	long long n = 0;
	int code;

	require_kernel();
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(mount("tmpfs", dir, "tmpfs", 0, "size=64k"), 0);
	spawn(&ch, argv);
	wait_for_stderr(&ch, "abicap: recording", seen, sizeof(seen));
	/* far more than 64 KiB of compressed records */
	for (int i = 0; i < 30 && !exited(ch.pid); i++)
		pingpong_run(&pp, 20000, 0);
	kill(ch.pid, SIGINT);
	err = read_all(ch.err_fd);
	code = wait_exit(&ch, 30);
	cr_assert_eq(code, 4, "exit %d: %s", code, err);
	cr_assert(strstr(err, "No space left on device"), "%s", err);
	cr_assert(strstr(err, file), "%s", err);
	/* what was written before reads back */
	r = capr_open(file, seen, sizeof(seen));
	cr_assert(r, "%s", seen);
	while (capr_next(r, &rec) == 1)
		n++;
	capr_close(r);
	cr_assert_gt(n, 0);
	free(err);
	cr_assert_eq(umount(dir), 0);
}
