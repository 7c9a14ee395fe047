// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * serve's numbers against the kernel's own: with --accounting kernel, the
 * run-queue waits and on-CPU time of a cgroup are what the scheduler
 * charged its tasks, to the nanosecond: the sums of /proc/TID/schedstat
 * (sum_exec_runtime, run_delay, pcount) over every thread the cgroup ever
 * held. The workload is born in its cgroup (clone3 CLONE_INTO_CGROUP), after
 * serve attached, and stopped (SIGSTOP) before it is compared: every wait
 * and every run slice of its whole life is complete and in both.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "abicap.h"
#include "event/cgroup.h"
#include "harness.h"

static char root[4096]; /* the cgroup v2 mount */
static char base[64]; /* "/abicap-oracle-PID": what serve watches */
static char work[96]; /* base/work: the workload's cgroup */
static struct child srv;
static int srv_port; /* serve_and_compare()'s */
static pid_t kid;

static void setup(void)
{
	char err[256], dir[4300];

	require_kernel();
	cr_assert_eq(cgroup_root(root, sizeof(root), err, sizeof(err)), 0, "%s",
		     err);
	snprintf(base, sizeof(base), "/abicap-oracle-%d", getpid());
	snprintf(work, sizeof(work), "%s/work", base);
	snprintf(dir, sizeof(dir), "%s%s", root, base);
	cr_assert(!mkdir(dir, 0755), "mkdir %s: %s", dir, strerror(errno));
	snprintf(dir, sizeof(dir), "%s%s", root, work);
	cr_assert(!mkdir(dir, 0755), "mkdir %s: %s", dir, strerror(errno));
}

static void teardown(void)
{
	char dir[4300];

	if (kid > 0) {
		kill(kid, SIGKILL);
		waitpid(kid, NULL, 0);
		kid = 0;
	}
	if (srv.pid > 0 && !kill(srv.pid, SIGKILL))
		waitpid(srv.pid, NULL, 0);
	for (int t = 0; t < 50; t++) {
		snprintf(dir, sizeof(dir), "%s%s", root, work);
		rmdir(dir);
		snprintf(dir, sizeof(dir), "%s%s", root, base);
		if (!rmdir(dir) || errno == ENOENT)
			break;
		usleep(20000);
	}
}

TestSuite(serve_oracle, .init = setup, .fini = teardown, .timeout = 120);

static void start_serve(int port, const char *accounting, char *seen,
			size_t len)
{
	char listen[64];

	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	spawn(&srv, (char *[]){ (char *)abicap_bin(), "serve", "--listen",
			       listen, "--cgroup", base, "--accounting",
			       (char *)accounting, NULL });
	wait_for_stderr(&srv, "serving http://", seen, len);
}

/* argv run in the cgroup work from its first instruction (clone3). */
static pid_t start_born_in_work(char *const argv[])
{
	char dir[4300];
	struct clone_args ca = { .flags = CLONE_INTO_CGROUP,
				 .exit_signal = SIGCHLD };
	int fd, devnull;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s%s", root, work);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(fd >= 0, "open %s: %s", dir, strerror(errno));
	ca.cgroup = (__u64)fd;
	pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	cr_assert(pid >= 0, "clone3 into %s: %s", dir, strerror(errno));
	if (!pid) {
		devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd);
	return pid;
}

struct kstat {
	unsigned long long run_ns, delay_ns, pcount;
	int threads;
};

/* The sums of /proc/TID/schedstat over the threads in cgroup cg. */
static struct kstat kernel_sums_of(const char *cg)
{
	char path[4400], line[128];
	struct kstat k = { 0 };
	unsigned long long a, b, c;
	FILE *f, *s;
	int tid;

	snprintf(path, sizeof(path), "%s%s/cgroup.threads", root, cg);
	f = fopen(path, "r");
	cr_assert(f, "%s: %s", path, strerror(errno));
	while (fscanf(f, "%d", &tid) == 1) {
		snprintf(line, sizeof(line), "/proc/%d/schedstat", tid);
		s = fopen(line, "r");
		cr_assert(s, "%s: %s", line, strerror(errno));
		cr_assert_eq(fscanf(s, "%llu %llu %llu", &a, &b, &c), 3);
		fclose(s);
		k.run_ns += a;
		k.delay_ns += b;
		k.pcount += c;
		k.threads++;
	}
	fclose(f);
	return k;
}

static struct kstat kernel_sums(void)
{
	return kernel_sums_of(work);
}

/*
 * The sample of metric{cgroup="work"...} as exact nanoseconds (seconds
 * with 9 decimals) or a count (ns false); -1 if there is none.
 */
static long long sample_of(const char *text, const char *metric, bool ns)
{
	char prefix[256];
	const char *p;
	unsigned long long whole = 0, frac = 0;
	int digits = 0;

	snprintf(prefix, sizeof(prefix), "%s{cgroup=\"%s\"", metric, work);
	for (p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, prefix, strlen(prefix)))
			break;
	if (!p)
		return -1;
	p = strchr(p, '}');
	cr_assert(p && p[1] == ' ', "no value after %s", prefix);
	p += 2;
	while (*p >= '0' && *p <= '9')
		whole = whole * 10 + (unsigned long long)(*p++ - '0');
	if (!ns)
		return (long long)whole;
	cr_assert_eq(*p, '.', "%s: seconds without 9 decimals", metric);
	for (p++; *p >= '0' && *p <= '9'; p++, digits++)
		frac = frac * 10 + (unsigned long long)(*p - '0');
	cr_assert_eq(digits, 9, "%s: %d decimals, not 9", metric, digits);
	return (long long)(whole * 1000000000ull + frac);
}

/* Every thread of pid is stopped (state T in /proc/PID/task/TID/stat). */
static bool all_stopped(pid_t pid)
{
	char path[320], buf[512], *rp;
	struct dirent *d;
	bool all = true;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return false;
	while (all && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", pid,
			 d->d_name);
		f = fopen(path, "r");
		if (!f || !fgets(buf, sizeof(buf), f))
			all = false;
		else if (!(rp = strrchr(buf, ')')) || rp[1] != ' ' ||
			 rp[2] != 'T')
			all = false;
		if (f)
			fclose(f);
	}
	closedir(dir);
	return all;
}

/* SIGSTOP pid and wait until every thread of it is stopped. */
static void stop_all(pid_t pid)
{
	cr_assert_eq(kill(pid, SIGSTOP), 0);
	for (int t = 0; t < 500 && !all_stopped(pid); t++)
		usleep(10000);
	cr_assert(all_stopped(pid), "pingpong never stopped");
}

/*
 * fd of a map named name; for cg_owner (id not 0), the one holding id in
 * id's slot, *slot. -1 if none.
 */
static int map_named(const char *name, uint64_t id, uint32_t *slot)
{
	__u32 next = 0;

	while (!bpf_map_get_next_id(next, &next)) {
		struct bpf_map_info info = { 0 };
		__u32 len = sizeof(info);
		uint64_t v = 0;
		int fd = bpf_map_get_fd_by_id(next);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    !strcmp(info.name, name) && info.max_entries) {
			if (!id)
				return fd;
			*slot = (uint32_t)id & (info.max_entries - 1);
			if (!bpf_map_lookup_elem(fd, slot, &v) && v == id)
				return fd;
		}
		close(fd);
	}
	return -1;
}

/*
 * Run the workload (pingpong on CPU cpu, -1 unpinned), stop it, and compare
 * serve's sums with the kernel's until both stand still (the stopped tasks'
 * last switches are a moment behind their state T). Returns the last pair.
 */
static char last_losses[2048];
static long long merged; /* abicap_runqueue_waits_merged_total */
static long long unseen; /* abicap_cpu_runs_unseen_total of work */
static uint64_t want_slot; /* compare(): run on once this id has a slot */

static void compare(int port, const char *cpu, struct kstat *k,
		    long long *lat_ns, long long *lat_n, long long *cpu_ns)
{
	char *text, *l1, *l2;
	long long last[3] = { -1, -1, -1 };
	struct kstat last_k = { 0 };

	kid = start_born_in_work((char *[]){ "build/pingpong", "30",
					     (char *)cpu, NULL });
	/* enough exchanges to compare (a hang guard, not a result) */
	for (int t = 0; t < 300; t++) {
		usleep(10000);
		*k = kernel_sums();
		if (k->pcount > 20000)
			break;
	}
	/* with want_slot: until serve gave the cgroup its slot, and as long again */
	for (int t = 0; want_slot && t < 300; t++) {
		unsigned long long from;
		uint32_t slot;
		int fd = map_named("cg_owner", want_slot, &slot);

		if (fd >= 0) {
			close(fd);
			from = kernel_sums().pcount;
			for (int u = 0; u < 300 && kernel_sums().pcount < from + 20000;
			     u++)
				usleep(10000);
			break;
		}
		usleep(10000);
	}
	stop_all(kid);
	for (int t = 0; t < 50; t++) {
		usleep(100000);
		*k = kernel_sums();
		text = scrape_metrics(port);
		*lat_ns = sample_of(text, "abicap_runqueue_latency_seconds_sum",
				    true);
		*lat_n = sample_of(text, "abicap_runqueue_latency_seconds_count",
				   false);
		*cpu_ns = sample_of(text, "abicap_cpu_seconds_total", true);
		unseen = sample_of(text, "abicap_cpu_runs_unseen_total", false);
		merged = (long long)metric_sample(text,
				"abicap_runqueue_waits_merged_total");
		l1 = metric_lines(text, "abicap_updates_lost_total");
		l2 = metric_lines(text, "abicap_bpf_recursion_misses_total");
		snprintf(last_losses, sizeof(last_losses), "%s\n%s", l1, l2);
		free(l1);
		free(l2);
		free(text);
		if (*lat_ns == (long long)k->delay_ns &&
		    *lat_n + merged == (long long)k->pcount &&
		    *cpu_ns == (long long)k->run_ns)
			break;
		/* both stand still (the events path is not exact) */
		if (t && *lat_ns == last[0] && *lat_n == last[1] &&
		    *cpu_ns == last[2] && k->delay_ns == last_k.delay_ns &&
		    k->pcount == last_k.pcount && k->run_ns == last_k.run_ns)
			break;
		last[0] = *lat_ns;
		last[1] = *lat_n;
		last[2] = *cpu_ns;
		last_k = *k;
	}
}

/* serve --accounting src, the workload on cpu, stopped and compared */
static void serve_and_compare(const char *src, const char *cpu,
			      struct kstat *k, long long *lat_ns,
			      long long *lat_n, long long *cpu_ns)
{
	char seen[1024], want[64];
	int port = free_ports(1);

	srv_port = port;
	start_serve(port, src, seen, sizeof(seen));
	snprintf(want, sizeof(want), "accounting: %s", src);
	cr_assert(strstr(seen, want), "%s", seen);
	compare(port, cpu, k, lat_ns, lat_n, cpu_ns);
	cr_assert_eq(k->threads, 3, "pingpong's 3 threads in %s: %d", work,
		     k->threads);
	cr_assert_gt(k->pcount, 20000);
}

static void kernel_accounting_equals_schedstat(const char *cpu)
{
	long long lat_ns, lat_n, cpu_ns;
	struct kstat k;

	serve_and_compare("kernel", cpu, &k, &lat_ns, &lat_n, &cpu_ns);
	cr_assert_eq(lat_n + merged, (long long)k.pcount, "waits: serve %lld "
		     "and %lld merged, the kernel's pcount %llu (time waited: "
		     "serve %lld ns, the kernel's %llu; on-CPU: %lld ns, %llu); "
		     "serve's losses:\n%s", lat_n, merged, k.pcount, lat_ns,
		     k.delay_ns, cpu_ns, k.run_ns, last_losses);
	/* the merged ones are the exception (none pinned to one CPU) */
	cr_assert_leq(merged * 1000, (long long)k.pcount, "%lld of %llu waits "
		      "merged", merged, k.pcount);
	cr_assert_eq(lat_ns, (long long)k.delay_ns, "time waited: serve %lld "
		     "ns, the kernel's run_delay %llu ns", lat_ns, k.delay_ns);
	cr_assert_eq(cpu_ns, (long long)k.run_ns, "on-CPU time: serve %lld ns, "
		     "the kernel's sum_exec_runtime %llu ns", cpu_ns, k.run_ns);
	kill(srv.pid, SIGINT);
	cr_assert_eq(wait_exit(&srv, 20), 0);
}

/* Both threads on CPU 0: every wait on one run queue. */
Test(serve_oracle, kernel_accounting_equals_schedstat_pinned)
{
	kernel_accounting_equals_schedstat("0");
}

/* Unpinned: waits that end on another CPU, cut by migrations. */
Test(serve_oracle, kernel_accounting_equals_schedstat_unpinned)
{
	kernel_accounting_equals_schedstat("-1");
}

/*
 * --accounting events (the path of kernels before 6.0 and of raw_tp):
 * sched_wakeup programs and the BPF clock. Each wait is measured between
 * two tracepoints instead of the scheduler's own two moments: the count is
 * the kernel's, and the times within a stated bound of its.
 */
Test(serve_oracle, events_accounting_is_within_bounds_of_schedstat)
{
	long long lat_ns, lat_n, cpu_ns;
	struct kstat k;

	serve_and_compare("events", "0", &k, &lat_ns, &lat_n, &cpu_ns);
	/*
	 * Runs whose switch-in no sched_switch showed (this machine's kernel
	 * hides its agent's threads from tracing: a switch from one of them
	 * to pingpong is unseen) are counted in abicap_cpu_runs_unseen_total
	 * and charged nothing, nor is the wait that ended there counted
	 * (before, the hidden task's time went to the run after it: CI's
	 * loaded run had serve 2% over the kernel). Each such run makes
	 * serve's sums short by an unknown amount: only the bounds from
	 * above hold then.
	 */
	if (unseen)
		fprintf(stderr, "serve_oracle: %lld runs of pingpong began "
			"unseen: serve %lld ns on CPU and %lld waits, the kernel "
			"%llu ns and %llu\n", unseen, cpu_ns, lat_n, k.run_ns,
			k.pcount);
	/* a wait in flight at the stop: a few */
	cr_assert_leq(lat_n - (long long)k.pcount, 3, "waits: serve %lld, the "
		      "kernel's pcount %llu", lat_n, k.pcount);
	cr_assert_leq((long long)k.pcount - lat_n, 3 + unseen, "waits: serve "
		      "%lld, the kernel's pcount %llu (%lld runs unseen)", lat_n,
		      k.pcount, unseen);
	/*
	 * each wait from the sched_wakeup tracepoint (after the enqueue) to
	 * the sched_switch one (after the pick), not from the enqueue to the
	 * clock update before the pick: about 0.3 us apart here; 2 us a wait
	 * on average bounds it
	 */
	cr_assert_leq(lat_ns - (long long)k.delay_ns, 2000 * lat_n,
		      "time waited: serve %lld ns, the kernel's %llu ns, over "
		      "%lld waits", lat_ns, k.delay_ns, lat_n);
	if (!unseen)
		cr_assert_leq((long long)k.delay_ns - lat_ns, 2000 * lat_n,
			      "time waited: serve %lld ns, the kernel's %llu "
			      "ns, over %lld waits", lat_ns, k.delay_ns, lat_n);
	/* on-CPU: switch to switch by the BPF clock, not the charges: 1% */
	cr_assert_leq(cpu_ns - (long long)k.run_ns, (long long)k.run_ns / 100,
		      "on-CPU time: serve %lld ns, the kernel's %llu ns (%lld "
		      "runs unseen)", cpu_ns, k.run_ns, unseen);
	if (!unseen)
		cr_assert_leq((long long)k.run_ns - cpu_ns,
			      (long long)k.run_ns / 100, "on-CPU time: serve "
			      "%lld ns, the kernel's %llu ns", cpu_ns, k.run_ns);
	kill(srv.pid, SIGINT);
	cr_assert_eq(wait_exit(&srv, 20), 0);
}

/* Move every thread of the stopped pid into cgroup cg (a path under root). */
static void move_to(pid_t pid, const char *cg)
{
	char path[4400];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s/cgroup.procs", root, cg);
	f = fopen(path, "w");
	cr_assert(f, "%s: %s", path, strerror(errno));
	cr_assert_gt(fprintf(f, "%d\n", pid), 0);
	cr_assert_eq(fclose(f), 0, "move %d to %s: %s", pid, cg, strerror(errno));
}

/* Stop pid, wait for every thread to stop and its sums to stand still. */
static struct kstat stop_and_sum(pid_t pid, const char *cg)
{
	struct kstat k, last = { 0 };

	stop_all(pid);
	for (int t = 0; t < 50; t++) {
		usleep(50000);
		k = kernel_sums_of(cg);
		if (t && k.run_ns == last.run_ns && k.delay_ns == last.delay_ns &&
		    k.pcount == last.pcount)
			break;
		last = k;
	}
	return k;
}

/*
 * serve --cgroup leaves a task out while it is in a cgroup outside the
 * subtree: coming back, it is not charged for its waits and runs outside
 * (its sums are kept up to date there too). Before, the first switch-in
 * and switch-out back inside carried everything since it left.
 */
Test(serve_oracle, a_task_back_from_outside_the_subtree_is_charged_for_inside_only)
{
	char seen[1024], outside[96], dir[4400], *text;
	int port = free_ports(1);
	struct kstat a, b, c;
	long long lat_ns = -1, cpu_ns = -1;

	snprintf(outside, sizeof(outside), "/abicap-oracle-out-%d", getpid());
	snprintf(dir, sizeof(dir), "%s%s", root, outside);
	cr_assert(!mkdir(dir, 0755), "mkdir %s: %s", dir, strerror(errno));
	start_serve(port, "kernel", seen, sizeof(seen));
	kid = start_born_in_work((char *[]){ "build/pingpong", "30", "-1",
					     NULL });
	usleep(700000);
	a = stop_and_sum(kid, work);
	move_to(kid, outside);
	cr_assert_eq(kill(kid, SIGCONT), 0);
	usleep(700000);
	b = stop_and_sum(kid, outside);
	move_to(kid, work);
	cr_assert_eq(kill(kid, SIGCONT), 0);
	usleep(700000);
	c = stop_and_sum(kid, work);
	for (int t = 0; t < 50; t++) {
		text = scrape_metrics(port);
		lat_ns = sample_of(text, "abicap_runqueue_latency_seconds_sum",
				   true);
		cpu_ns = sample_of(text, "abicap_cpu_seconds_total", true);
		free(text);
		if (lat_ns == (long long)(a.delay_ns + c.delay_ns - b.delay_ns) &&
		    cpu_ns == (long long)(a.run_ns + c.run_ns - b.run_ns))
			break;
		usleep(100000);
	}
	cr_assert_gt(b.run_ns, a.run_ns, "it ran outside: %llu then %llu (%d, %d threads)", a.run_ns, b.run_ns, a.threads, b.threads);
	cr_assert_eq(lat_ns, (long long)(a.delay_ns + c.delay_ns - b.delay_ns),
		     "time waited inside: serve %lld ns, the kernel's %llu "
		     "(before leaving %llu, back %llu, at the end %llu)", lat_ns,
		     a.delay_ns + c.delay_ns - b.delay_ns, a.delay_ns,
		     b.delay_ns, c.delay_ns);
	cr_assert_eq(cpu_ns, (long long)(a.run_ns + c.run_ns - b.run_ns),
		     "on-CPU inside: serve %lld ns, the kernel's %llu (before "
		     "leaving %llu, back %llu, at the end %llu)", cpu_ns,
		     a.run_ns + c.run_ns - b.run_ns, a.run_ns, b.run_ns,
		     c.run_ns);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	kid = 0;
	for (int t = 0; t < 50 && rmdir(dir) && errno != ENOENT; t++)
		usleep(20000);
	kill(srv.pid, SIGINT);
	cr_assert_eq(wait_exit(&srv, 20), 0);
}

/*
 * serve keeps a cgroup's statistics in a slot found by its id's low bits
 * once it gave it one (bpf/abicap.bpf.c cg_owner): what came before is in
 * its cg_stats entry. The sum of the two is the kernel's to the nanosecond;
 * the slot is held when the cgroup is removed, and zeroed and free a
 * second later.
 */
Test(serve_oracle, a_cgroup_slot_is_given_summed_and_taken_back)
{
	long long lat_ns, lat_n, cpu_ns;
	struct abicap_cg_stats *vals;
	char dir[4400], *text;
	struct kstat k;
	struct stat sb;
	uint32_t slot;
	long long in_slot = 0;
	uint64_t v;
	int fd, sfd, ncpus = libbpf_num_possible_cpus();

	snprintf(dir, sizeof(dir), "%s%s", root, work);
	cr_assert_eq(stat(dir, &sb), 0);
	want_slot = (uint64_t)sb.st_ino;
	serve_and_compare("kernel", "0", &k, &lat_ns, &lat_n, &cpu_ns);
	fd = map_named("cg_owner", (uint64_t)sb.st_ino, &slot);
	cr_assert_geq(fd, 0, "no cg_owner map gives cgroup %llu its slot",
		      (unsigned long long)sb.st_ino);
	/* the slot has counted since it was given, the entry before */
	sfd = map_named("cg_slots", 0, NULL);
	cr_assert_geq(sfd, 0, "no cg_slots map");
	vals = calloc((size_t)ncpus, sizeof(*vals));
	cr_assert(vals);
	cr_assert_eq(bpf_map_lookup_elem(sfd, &slot, vals), 0);
	for (int c = 0; c < ncpus; c++)
		in_slot += (long long)vals[c].oncpu_ns;
	cr_assert(in_slot > 0 && in_slot < cpu_ns, "on-CPU time in slot %u: "
		  "%lld ns of serve's %lld", slot, in_slot, cpu_ns);
	cr_assert_eq(lat_n + merged, (long long)k.pcount);
	cr_assert_eq(lat_ns, (long long)k.delay_ns);
	cr_assert_eq(cpu_ns, (long long)k.run_ns, "on-CPU time: serve %lld ns "
		     "(its entry's and its slot's), the kernel's %llu ns",
		     cpu_ns, k.run_ns);
	/* removed: the scrape that sees it gone takes the slot back */
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	kid = 0;
	for (int t = 0; t < 50 && rmdir(dir) && errno != ENOENT; t++)
		usleep(20000);
	/* a scrape renders anew once the page is HTTP_PAGE_AGE_NS old */
	for (int t = 0; t < 50; t++) {
		free(scrape_metrics(srv_port));
		cr_assert_eq(bpf_map_lookup_elem(fd, &slot, &v), 0);
		if (v == ABICAP_CG_SLOT_HELD)
			break;
		usleep(50000);
	}
	cr_assert_eq(v, ABICAP_CG_SLOT_HELD, "slot %u: %#llx, not held", slot,
		     (unsigned long long)v);
	for (int t = 0; t < 40 && v; t++) {
		usleep(100000);
		cr_assert_eq(bpf_map_lookup_elem(fd, &slot, &v), 0);
	}
	cr_assert_eq(v, 0, "slot %u still %#llx 4 s after", slot,
		     (unsigned long long)v);
	close(fd);
	/* and zeroed before it was free */
	cr_assert_eq(bpf_map_lookup_elem(sfd, &slot, vals), 0);
	for (int c = 0; c < ncpus; c++)
		cr_assert_eq(vals[c].oncpu_ns + vals[c].rq_count, 0,
			     "slot %u of CPU %d not zeroed", slot, c);
	free(vals);
	close(sfd);
	text = scrape_metrics(srv_port);
	cr_assert_null(strstr(text, work), "%s", text);
	free(text);
	kill(srv.pid, SIGINT);
	cr_assert_eq(wait_exit(&srv, 20), 0);
}
