// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The kernel side against the kernel's own view (issue 17): the pid filter
 * of a followed command over many forks and reused pids, and wakers against
 * tracefs's sched_waking lines (common_pid, irq-context flags) in a private
 * tracefs instance with trace_clock mono.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"
#include "util.h"

#define EV(e) (1u << (e))

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* A process that sleeps `n` times under a known name, then exits. */
static void sleeper_body(const char *name, int n)
{
	prctl(PR_SET_NAME, name);
	for (int i = 0; i < n; i++)
		sleep_us(1000);
	_exit(0);
}

/*
 * Switches in or out of pid from `since` on that no followed process
 * explains: the other side is not `me` (the only followed process left by
 * then; pid_max is 32768 here, so the loop's own children may have had the
 * pid before).
 */
static int unexplained_switches(const struct collected *col, int32_t pid,
				pid_t me, uint64_t since)
{
	int n = 0;

	for (size_t i = 0; i < col->n; i++) {
		const struct abicap_switch *s = &col->v[i].sw;

		if (s->hdr.type != ABICAP_EV_SCHED_SWITCH || s->hdr.ts_ns < since)
			continue;
		if ((s->prev_pid == pid && s->next_tgid != me) ||
		    (s->next_pid == pid && s->prev_tgid != me)) {
			cr_log_error("unexplained: %s %d/%d -> %s %d/%d state %#x "
				     "at %llu", s->prev_comm, s->prev_pid,
				     s->prev_tgid, s->next_comm, s->next_pid,
				     s->next_tgid, s->prev_state,
				     (unsigned long long)s->hdr.ts_ns);
			n++;
		}
	}
	return n;
}

static int switches_out_of(const struct collected *col, int32_t pid)
{
	int n = 0;

	for (size_t i = 0; i < col->n; i++)
		n += col->v[i].hdr.type == ABICAP_EV_SCHED_SWITCH &&
		     col->v[i].sw.prev_pid == pid;
	return n;
}

/*
 * A helper forked before the capture starts (so not followed) that, asked
 * for a pid, makes a process with exactly that pid (ns_last_pid) which
 * sleeps under the name abc_stranger. Answers with the pid, or -1.
 */
struct stranger_maker {
	pid_t pid;
	int req, resp;
};

static void maker_loop(int req, int resp)
{
	int32_t want;

	while (read(req, &want, sizeof(want)) == sizeof(want)) {
		int32_t got = -1;

		for (int tries = 0; tries < 200 && got < 0; tries++) {
			FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
			pid_t p;

			if (!f)
				break;
			fprintf(f, "%d", want - 1);
			fclose(f);
			p = fork();
			if (p == 0) {
				if (getpid() != want)
					_exit(0);
				sleeper_body("abc_stranger", 40);
			}
			if (p == want)
				got = p;
			else if (p > 0)
				waitpid(p, NULL, 0);
		}
		if (write(resp, &got, sizeof(got)) != sizeof(got))
			_exit(1);
		if (got > 0)
			waitpid(got, NULL, 0);
		if (write(resp, &got, sizeof(got)) != sizeof(got))
			_exit(1);
	}
	_exit(0);
}

static void maker_start(struct stranger_maker *m)
{
	int a[2], b[2];

	cr_assert_eq(pipe(a), 0);
	cr_assert_eq(pipe(b), 0);
	m->pid = fork();
	cr_assert_geq(m->pid, 0);
	if (m->pid == 0) {
		close(a[1]);
		close(b[0]);
		maker_loop(a[0], b[1]);
	}
	close(a[0]);
	close(b[1]);
	m->req = a[1];
	m->resp = b[0];
}

/*
 * record -- CMD follows every process the command forks, however many
 * come and go (more than the filter holds at once), and a process that
 * reuses the pid of one that has gone is a stranger, not the command.
 */
Test(truth_bpf, follow_survives_many_forks_and_ignores_reused_pids,
     .timeout = 240)
{
	struct capture_opts o = {
		.events = EV(ABICAP_EV_SCHED_SWITCH),
		.npids = 1,
		.follow_forks = true,
	};
	struct collected col = { 0 };
	struct stranger_maker m;
	uint64_t aux[ABICAP_AUX_COUNT];
	struct capture *c;
	int32_t reused = -1, got = -1, done;
	uint64_t asked;
	pid_t last;
	const int forks = ABICAP_PID_FILTER_MAX + 700;

	require_kernel();
	maker_start(&m);
	o.pids[0] = getpid();
	c = start_capture(&o, &col);
	for (int i = 0; i < forks; i++) {
		pid_t p = fork();

		cr_assert_geq(p, 0);
		if (p == 0)
			_exit(0);
		cr_assert_eq(waitpid(p, NULL, 0), p);
		if (i == 0)
			reused = p;
		if (i % 256 == 0)
			cr_assert_geq(capture_poll(c, 0), 0);
	}
	/* the command's last process: still followed */
	last = fork();
	cr_assert_geq(last, 0);
	if (last == 0)
		sleeper_body("abc_last", 40);
	cr_assert_eq(waitpid(last, NULL, 0), last);
	/* a stranger with the first child's pid, long gone */
	asked = mono_ns();
	cr_assert_eq(write(m.req, &reused, sizeof(reused)), sizeof(reused));
	cr_assert_eq(read(m.resp, &got, sizeof(got)), sizeof(got));
	cr_assert_eq(read(m.resp, &done, sizeof(done)), sizeof(done));
	poll_for(c, 100);
	stop_and_check_lossless(c);
	cr_assert_eq(capture_aux(c, aux), 0);
	cr_assert_eq(aux[ABICAP_AUX_FOLLOW_FAILED], 0, "%llu processes not "
		     "followed", (unsigned long long)aux[ABICAP_AUX_FOLLOW_FAILED]);
	cr_assert_geq(aux[ABICAP_AUX_FOLLOW_ADDED], (uint64_t)forks + 1);
	cr_assert_geq(switches_out_of(&col, last), 40, "the last process: %d "
		      "switches of its 40 sleeps", switches_out_of(&col, last));
	if (got < 0)
		cr_log_warn("could not place a process on pid %d: that part "
			    "untested", reused);
	else
		cr_assert_eq(unexplained_switches(&col, got, getpid(), asked), 0,
			     "a stranger reusing pid %d was recorded (%d "
			     "switches out)", got, switches_out_of(&col, got));
	close(m.req);
	close(m.resp);
	waitpid(m.pid, NULL, 0);
	capture_close(c);
	collected_free(&col);
}
