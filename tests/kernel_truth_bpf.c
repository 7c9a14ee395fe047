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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"
#include "oracle.h"
#include "lib/util.h"
#include <bpf/libbpf.h>
#include <pthread.h>

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
	/*
	 * 17,000 processes, each waited for: beside a load of 16 on 2 CPUs
	 * at nice 0 they took over 240 s (issue 36: a workload that needs CPU
	 * time gets it). This test's process only: Criterion forks one a test.
	 */
	cr_assert_eq(setpriority(PRIO_PROCESS, 0, -15), 0, "%s", strerror(errno));
	maker_start(&m);
	o.pids[0] = getpid();
	c = start_capture(&o, &col);
	for (int i = 0; i < forks; i++) {
		/*
		 * vfork, as posix_spawn: a process each (the same fork
		 * events) without copying this one's page tables, whose
		 * ring mappings made each fork 2 ms (17,000 took 33 s quiet,
		 * over 240 s on CI's loaded machine)
		 */
		pid_t p = vfork();

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
		test_skip_part("could not place a process on pid %d: a "
			       "stranger reusing it is not checked", reused);
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

/* ---- a private tracefs instance as the oracle (tests/oracle.c) ---- */

static struct orc_session *oracle_start(void)
{
	char name[64], err[512];
	struct orc_session *s;

	require_path("/sys/kernel/tracing/instances", "tracefs mounted");
	snprintf(name, sizeof(name), "abicap_truth_%d", getpid());
	s = orc_start(name, 8192, err, sizeof(err));
	cr_assert(s, "tracefs oracle: %s", err);
	return s;
}

/* Stop and read the oracle; it must have lost nothing. */
static void oracle_stop(struct orc_session *s, struct orc_trace *t)
{
	char err[512];

	cr_assert_eq(orc_stop(s, t, err, sizeof(err)), 0, "tracefs oracle: %s",
		     err);
	cr_assert_eq(t->lost, 0, "tracefs lost %llu events",
		     (unsigned long long)t->lost);
}

/* What a record of abicap's may be from its tracefs line, ns. */
#define NEAR_NS 200000

/*
 * The oracle's event of this type about `pid` (the wakee, or the task
 * switched out) nearest to ts, less than `within` ns away.
 */
static const struct orc_ev *oracle_near(const struct orc_trace *t, int type,
					int pid, uint64_t ts, uint64_t within)
{
	const struct orc_ev *best = NULL;
	uint64_t bestd = within;

	for (size_t i = 0; i < t->n; i++) {
		const struct orc_ev *e = &t->v[i];
		uint64_t d = e->ts > ts ? e->ts - ts : ts - e->ts;
		int who = type == ABICAP_EV_SCHED_SWITCH ? e->prev_pid : e->pid;

		if (e->type == type && who == pid && d < bestd) {
			best = e;
			bestd = d;
		}
	}
	return best;
}

/* ---- wakers against tracefs's sched_waking ---- */

/*
 * abicap has a sched_waking tracefs lacks within 200 us: fail with what
 * tracefs had around it (the nearest waking of that task at any distance,
 * and what ran on that CPU then), so that a failure says why.
 */
static void no_line_near(const struct orc_trace *t, const struct abicap_wakeup *w)
{
	const struct orc_ev *near = oracle_near(t, ABICAP_EV_SCHED_WAKING,
						w->pid, w->hdr.ts_ns, UINT64_MAX);
	const struct orc_ev *cur = NULL;
	long long nd = near ? llabs((long long)(near->ts - w->hdr.ts_ns)) : -1;

	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].type == ABICAP_EV_SCHED_SWITCH &&
		    t->v[i].cpu == (int)w->hdr.cpu && t->v[i].ts <= w->hdr.ts_ns)
			cur = &t->v[i];
	cr_assert_fail("abicap's sched_waking of %s %d at %llu on CPU %u "
		       "(waker %d) has no tracefs line within %d us; nearest "
		       "tracefs waking of it: %s (%lld ns away); that CPU's "
		       "last switch before: %s", w->comm, w->pid,
		       (unsigned long long)w->hdr.ts_ns, w->hdr.cpu, w->waker_pid,
		       NEAR_NS / 1000, near ? near->line : "(none)", nd,
		       cur ? cur->line : "(none)");
}

static volatile int stop_busy, naps_done;

/* Keeps a CPU busy: interrupts there interrupt a followed task. */
static void *busy(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "abc_busy");
	while (!stop_busy)
		;
	return NULL;
}

/*
 * Sleeps 1 ms at a time, 200 times whatever the load: woken by the hrtimer
 * interrupt.
 */
static void *napper(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "abc_nap");
	for (int i = 0; i < 200; i++)
		sleep_us(1000);
	naps_done = 1;
	return NULL;
}

static const char *ctx_name(char c)
{
	return c == '.' ? "task" : c == 's' ? "softirq" : "hardirq/NMI";
}

/*
 * A filtered capture (-p this process) while one of its threads spins and
 * another sleeps on timers: every sched_waking abicap keeps agrees with
 * tracefs's line for it. In task context the waker is tracefs's
 * common_pid; in a hardirq or NMI it is -2 (interrupt); in a softirq -2,
 * or ksoftirqd running it in task context. No wakeup of another process
 * is kept on account of an interrupted followed task.
 */
static void wakers_agree(enum attach_mode mode)
{
	struct capture_opts o = {
		.events = EV(ABICAP_EV_SCHED_WAKING) | EV(ABICAP_EV_SCHED_WAKEUP),
		.npids = 1,
		.mode = mode,
	};
	struct collected col = { 0 };
	struct orc_trace tl = { 0 };
	struct orc_session *ti;
	struct capture *c;
	pthread_t b1, b2, n1;
	pid_t me = getpid();
	int matched = 0, irq = 0, task = 0, strangers = 0;

	require_kernel();
	o.pids[0] = me;
	c = start_capture(&o, &col);
	/* tp_btf here: preempt_count by one plain load where it can be */
	if (mode == ATTACH_AUTO && kernel_reads_pc_plainly())
		cr_assert_str_eq(capture_program_name(c, ABICAP_EV_SCHED_WAKING),
				 "tp_btf_sched_waking_ts_pc");
	/* sched_switch has to have run once for the stack check (any CPU) */
	sleep_us(2000);
	ti = oracle_start();
	stop_busy = 0;
	naps_done = 0;
	cr_assert_eq(pthread_create(&b1, NULL, busy, NULL), 0);
	cr_assert_eq(pthread_create(&b2, NULL, busy, NULL), 0);
	cr_assert_eq(pthread_create(&n1, NULL, napper, NULL), 0);
	/* until every nap is over (a busy machine stretches them) */
	poll_for(c, 400);
	while (!naps_done)
		poll_for(c, 50);
	stop_busy = 1;
	pthread_join(b1, NULL);
	pthread_join(b2, NULL);
	pthread_join(n1, NULL);
	poll_for(c, 20);
	oracle_stop(ti, &tl);
	stop_and_check_lossless(c);
	cr_assert_gt(tl.n, 0, "tracefs recorded nothing");
	for (size_t i = 0; i < col.n; i++) {
		const struct abicap_wakeup *w = &col.v[i].wk;
		const struct orc_ev *t;

		if (w->hdr.type != ABICAP_EV_SCHED_WAKING ||
		    w->hdr.ts_ns < tl.v[0].ts || w->hdr.ts_ns > tl.v[tl.n - 1].ts)
			continue;
		t = oracle_near(&tl, ABICAP_EV_SCHED_WAKING, w->pid, w->hdr.ts_ns,
				NEAR_NS);
		if (!t)
			no_line_near(&tl, w);
		matched++;
		if (w->tgid != me)
			strangers++;
		if (t->ctx == '.' || (t->ctx == 's' &&
				      !strncmp(t->cur_comm, "ksoftirqd/", 10))) {
			task++;
			cr_assert_eq(w->waker_pid, t->cur_pid, "waking of %s "
				     "%d in task context: abicap's waker %d, "
				     "tracefs's %s-%d", w->comm, w->pid,
				     w->waker_pid, t->cur_comm, t->cur_pid);
		} else {
			irq++;
			cr_assert_eq(w->waker_pid, ABICAP_PID_INTERRUPT,
				     "waking of %s %d in %s context (tracefs "
				     "flags '%c', interrupted %s-%d): abicap's "
				     "waker %d, expected -2", w->comm, w->pid,
				     ctx_name(t->ctx), t->ctx, t->cur_comm,
				     t->cur_pid, w->waker_pid);
			cr_assert_eq(w->tgid, me, "%s %d woken in an interrupt "
				     "was kept by the filter", w->comm, w->pid);
		}
	}
	cr_log_info("%d wakings matched: %d in task context, %d in "
		    "interrupts, %d of other processes", matched, task, irq,
		    strangers);
	/* the napper's timer wakeups come from the hrtimer interrupt */
	cr_assert_geq(irq, 50, "only %d wakings from interrupts", irq);
	orc_trace_free(&tl);
	capture_close(c);
	collected_free(&col);
}

/* tp_btf: current's run queue by plain loads from its trusted pointer */
Test(truth_bpf, wakers_agree_with_tracefs_sched_waking, .timeout = 120)
{
	wakers_agree(ATTACH_AUTO);
}

/* raw_tp: no trusted pointers, the run queue by probe reads */
Test(truth_bpf, wakers_agree_with_tracefs_sched_waking_raw_tp, .timeout = 120)
{
	wakers_agree(ATTACH_RAW_TP);
}

/* ---- prev_state of frozen tasks against tracefs's sched_switch ---- */

static void put_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, val, strlen(val)), (ssize_t)strlen(val),
		     "%s <- %s: %s", path, val, strerror(errno));
	close(fd);
}

/* Wait up to 3 s for file to contain `want`. */
static void wait_contains(const char *path, const char *want)
{
	char buf[512];

	for (int i = 0; i < 300; i++) {
		int fd = open(path, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

		if (fd >= 0)
			close(fd);
		if (n > 0) {
			buf[n] = 0;
			if (strstr(buf, want))
				return;
		}
		sleep_us(10000);
	}
	cr_assert_fail("%s never said %s", path, want);
}

/* tracefs's letters for abicap's prev_state */
static const char *state_letters(uint32_t s)
{
	static const char *const l[] = { "S", "D", "T", "t", "X", "Z", "P", "I" };

	if (s == 0)
		return "R";
	if (s == ABICAP_STATE_PREEMPTED)
		return "R+";
	for (int i = 0; i < 8; i++)
		if (s == 1u << i)
			return l[i];
	return "?";
}

/*
 * Freeze a sleeping process with the cgroup v1 freezer (v1) or cgroup v2's
 * cgroup.freeze, thaw it, and compare the prev_state of each of its
 * switch-outs with tracefs's. The freezer's own switch-out must be there
 * (frozen: "D" on 6.1+ with f718faf3940e; v2's freeze trap: "S").
 */
static void frozen_states_agree(bool v1)
{
	struct capture_opts o = { .events = EV(ABICAP_EV_SCHED_SWITCH), .npids = 1 };
	char dir[256], path[300], pidstr[32];
	struct collected col = { 0 };
	int compared = 0, frozen_seen = 0;
	struct orc_trace tl = { 0 };
	struct orc_session *ti;
	struct capture *c;
	pid_t child;

	require_kernel();
	snprintf(dir, sizeof(dir), v1 ? "/sys/fs/cgroup/freezer/abicap_bpffix_%d" :
		 "/sys/fs/cgroup/unified/abicap_bpffix_%d", getpid());
	if (access(v1 ? "/sys/fs/cgroup/freezer" : "/sys/fs/cgroup/unified", F_OK))
		test_skip("no %s freezer here", v1 ? "cgroup v1" : "cgroup v2");
	cr_assert(!mkdir(dir, 0755) || errno == EEXIST, "%s: %s", dir,
		  strerror(errno));
	child = fork();
	cr_assert_geq(child, 0);
	/*
	 * v1: a spinning process, which the freezer's fake signal sends into
	 * the refrigerator (a switch-out as TASK_FROZEN); one asleep in a
	 * freezable sleep (nanosleep, 6.1+) would be frozen where it sleeps,
	 * without a switch. v2: a sleeping one, which cgroup.freeze traps.
	 */
	if (child == 0 && v1) {
		prctl(PR_SET_NAME, "abc_frozen");
		for (;;)
			;
	}
	if (child == 0)
		sleeper_body("abc_frozen", 1000000);
	snprintf(pidstr, sizeof(pidstr), "%d", child);
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	put_file(path, pidstr);
	o.pids[0] = child;
	c = start_capture(&o, &col);
	ti = oracle_start();
	sleep_us(20000);
	if (v1) {
		snprintf(path, sizeof(path), "%s/freezer.state", dir);
		put_file(path, "FROZEN");
		wait_contains(path, "FROZEN");
	} else {
		snprintf(path, sizeof(path), "%s/cgroup.freeze", dir);
		put_file(path, "1");
		snprintf(path, sizeof(path), "%s/cgroup.events", dir);
		wait_contains(path, "frozen 1");
	}
	poll_for(c, 100);
	if (v1) {
		snprintf(path, sizeof(path), "%s/freezer.state", dir);
		put_file(path, "THAWED");
	} else {
		snprintf(path, sizeof(path), "%s/cgroup.freeze", dir);
		put_file(path, "0");
	}
	poll_for(c, 50);
	oracle_stop(ti, &tl);
	stop_and_check_lossless(c);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	rmdir(dir);
	for (size_t i = 0; i < col.n; i++) {
		const struct abicap_switch *s = &col.v[i].sw;
		const struct orc_ev *t;
		const char *want;

		if (s->hdr.type != ABICAP_EV_SCHED_SWITCH || s->prev_pid != child)
			continue;
		t = oracle_near(&tl, ABICAP_EV_SCHED_SWITCH, child, s->hdr.ts_ns,
				NEAR_NS);
		if (!t)
			continue; /* before or after tracefs's window */
		want = t->prev_state;
		compared++;
		cr_assert_str_eq(state_letters(s->prev_state), want,
				 "switch-out of the %s process at %llu: abicap "
				 "%s (%#x), tracefs %s", v1 ? "v1-frozen" :
				 "v2-frozen", (unsigned long long)s->hdr.ts_ns,
				 state_letters(s->prev_state), s->prev_state, want);
		frozen_seen += !strcmp(want, "D");
	}
	cr_log_info("%d switch-outs compared, %d D", compared, frozen_seen);
	cr_assert_geq(compared, v1 ? 1 : 10, "only %d switch-outs compared",
		      compared);
	if (v1)
		cr_assert_geq(frozen_seen, 1, "the frozen switch-out is missing");
	orc_trace_free(&tl);
	capture_close(c);
	collected_free(&col);
}

Test(truth_bpf, frozen_state_v1_freezer_agrees_with_tracefs, .timeout = 60)
{
	frozen_states_agree(true);
}

Test(truth_bpf, frozen_state_v2_freeze_agrees_with_tracefs, .timeout = 60)
{
	frozen_states_agree(false);
}

/* ---- sched_wakeup's waker for new threads (task storage) ---- */

/*
 * perf bench sched messaging -t creates threads that are woken right
 * away: each sched_wakeup of the workload, all after the capture started,
 * names the waker that its sched_waking saw; any waker that could not be
 * kept is counted (WAKER_LOST), never a silent -1.
 */
Test(truth_bpf, new_threads_wakeups_name_their_waker, .timeout = 120)
{
	struct capture_opts o = {
		.events = EV(ABICAP_EV_SCHED_WAKEUP) | EV(ABICAP_EV_SCHED_WAKING),
	};
	struct collected col = { 0 };
	uint64_t aux[ABICAP_AUX_COUNT], unknown = 0, wakeups = 0;
	struct capture *c;
	pid_t child;
	int status;

	require_kernel();
	if (access("/usr/bin/perf", X_OK))
		test_skip("no perf (/usr/bin/perf; scripts/setup.sh installs it)");
	c = start_capture(&o, &col);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execl("/usr/bin/perf", "perf", "bench", "sched", "messaging", "-t",
		      "-g", "4", "-l", "200", (char *)NULL);
		_exit(127);
	}
	while (waitpid(child, &status, WNOHANG) == 0)
		cr_assert_geq(capture_poll(c, 20), 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	poll_for(c, 50);
	stop_and_check_lossless(c);
	cr_assert_eq(capture_aux(c, aux), 0);
	for (size_t i = 0; i < col.n; i++) {
		const struct abicap_wakeup *w = &col.v[i].wk;

		if (w->hdr.type != ABICAP_EV_SCHED_WAKEUP || w->tgid != child)
			continue;
		wakeups++;
		unknown += w->waker_pid == ABICAP_PID_UNKNOWN;
	}
	cr_log_info("%llu wakeups of the workload, %llu with waker -1, %llu "
		    "wakers lost (counted), %llu kept in the hash as task "
		    "storage failed", (unsigned long long)wakeups,
		    (unsigned long long)unknown,
		    (unsigned long long)aux[ABICAP_AUX_WAKER_LOST],
		    (unsigned long long)aux[ABICAP_AUX_WAKER_IN_HASH]);
	cr_assert_gt(wakeups, 1000);
	cr_assert_leq(unknown, aux[ABICAP_AUX_WAKER_LOST], "%llu wakeups with "
		      "waker -1, only %llu counted as lost",
		      (unsigned long long)unknown,
		      (unsigned long long)aux[ABICAP_AUX_WAKER_LOST]);
	capture_close(c);
	collected_free(&col);
}
