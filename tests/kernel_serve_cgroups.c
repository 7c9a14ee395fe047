// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * serve (and record) against cgroup churn by an unprivileged user (issue 23
 * #4, #5; issue 32): a
 * cgroup v2 subtree delegated to uid 65534 (nobody), as systemd delegates
 * one to every user session, in which a process running as nobody makes,
 * uses and removes cgroups in bulk. serve watches the test's subtree only
 * (--cgroup), so other tests' cgroups on the machine do not count.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <sched.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "event/cgroup.h"
#include "harness.h"

#define NOBODY 65534

static char root[4096];   /* the cgroup v2 mount */
static char base[64];     /* "/abicap-churn-PID": what serve watches */
static char deleg[96];    /* base/user: owned by nobody */
static struct child srv;
static bool hide; /* churn() makes deleg unreadable to others first */
static bool keep; /* churn() leaves its cgroups in place (empty) */
static pid_t kids[8];
static int nkids;

static void cg_dir(const char *cg, char *out, size_t len)
{
	snprintf(out, len, "%s%s", root, cg);
}

static void make_cg(const char *cg, bool for_nobody)
{
	char dir[4400], procs[4500];

	cg_dir(cg, dir, sizeof(dir));
	cr_assert(!mkdir(dir, 0755), "mkdir %s: %s", dir, strerror(errno));
	if (!for_nobody)
		return;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	cr_assert(!chown(dir, NOBODY, NOBODY) && !chown(procs, NOBODY, NOBODY),
		  "chown %s: %s", dir, strerror(errno));
}

static void setup(void)
{
	char err[256];

	scratch_init();
	require_kernel();
	cr_assert_eq(cgroup_root(root, sizeof(root), err, sizeof(err)), 0, "%s",
		     err);
	snprintf(base, sizeof(base), "/abicap-churn-%d", getpid());
	snprintf(deleg, sizeof(deleg), "%s/user", base);
	make_cg(base, false);
	/* what systemd's Delegate= gives a user: the directory and cgroup.procs */
	make_cg(deleg, true);
}

/* Remove every cgroup below and at dir, deepest first. */
static void rm_tree(const char *dir)
{
	char cmd[4600];

	snprintf(cmd, sizeof(cmd), "find '%s' -depth -type d -exec rmdir {} + "
		 "2>/dev/null", dir);
	for (int t = 0; t < 50; t++) {
		if (system(cmd) == 0 || access(dir, F_OK))
			break;
		usleep(20000);
	}
}

static void teardown(void)
{
	char dir[4400];

	if (srv.pid > 0 && !kill(srv.pid, SIGKILL))
		waitpid(srv.pid, NULL, 0);
	for (int i = 0; i < nkids; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	nkids = 0;
	if (base[0]) {
		cg_dir(base, dir, sizeof(dir));
		rm_tree(dir);
	}
	scratch_fini();
}

TestSuite(serve_cgroups, .init = setup, .fini = teardown, .timeout = 120);

static void start_serve(int port, const char *max_cgroups)
{
	char listen[64], seen[1024];

	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	spawn(&srv, (char *[]){ (char *)abicap_bin(), "serve", "--listen",
			       listen, "--cgroup", base, "--max-cgroups",
			       (char *)max_cgroups, NULL });
	wait_for_stderr(&srv, "serving http://", seen, sizeof(seen));
}

static int count_lines(const char *text, const char *needle)
{
	int c = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		c++;
	return c;
}

static int cmp_series(const char *a, const char *b)
{
	size_t la = strrchr(a, ' ') - a, lb = strrchr(b, ' ') - b;
	int c = memcmp(a, b, la < lb ? la : lb);

	return c ? c : (la > lb) - (la < lb);
}

static int cmp_lines(const void *a, const void *b)
{
	return cmp_series(*(char *const *)a, *(char *const *)b);
}

/* The sample lines of counters (and histogram parts), sorted by series. */
static char **counter_lines(const char *text, size_t *n)
{
	char **v = NULL, *copy = strdup(text), *save = NULL;
	size_t cap = 0;

	*n = 0;
	for (char *l = strtok_r(copy, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (l[0] == '#' || !strchr(l, ' ') ||
		    !(strstr(l, "_total{") || strstr(l, "_total ") ||
		      strstr(l, "_bucket{") || strstr(l, "_count{") ||
		      strstr(l, "_sum{")))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			v = realloc(v, cap * sizeof(*v));
			cr_assert(v);
		}
		v[(*n)++] = strdup(l);
	}
	free(copy);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_lines);
	return v;
}

/* No counter of `before` that `after` still has is lower there. */
static void assert_no_counter_went_down(const char *before, const char *after)
{
	size_t na, nb, i = 0, j = 0;
	char **a = counter_lines(before, &na), **b = counter_lines(after, &nb);

	while (i < na && j < nb) {
		int c = cmp_series(a[i], b[j]);

		if (!c) {
			double x = strtod(strrchr(a[i], ' '), NULL),
			       y = strtod(strrchr(b[j], ' '), NULL);

			cr_assert_geq(y, x, "a counter went down: %s then %s",
				      a[i], b[j]);
		}
		i += c <= 0;
		j += c >= 0;
	}
	for (i = 0; i < na; i++)
		free(a[i]);
	for (j = 0; j < nb; j++)
		free(b[j]);
	free(a);
	free(b);
}

static bool write_str(const char *file, const char *s)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s);

	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * As nobody, from deleg/home, in batches of `batch` cgroups: make each
 * deleg/<tag><i>, move there, sleep a moment (a context switch in that
 * cgroup: a map entry) and move back; with sync_wr >= 0, say so on it and
 * wait for a byte on sync_rd; then remove the batch. Exit 0 or the step
 * that failed.
 */
static pid_t churn(const char *tag, int n, int batch, int sync_rd,
		   int sync_wr)
{
	char home[4400], procs[4500];
	pid_t pid;

	cg_dir(deleg, home, sizeof(home));
	strcat(home, "/home");
	if (access(home, F_OK)) {
		cr_assert(!mkdir(home, 0755), "%s", strerror(errno));
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", home);
		cr_assert(!chown(home, NOBODY, NOBODY) &&
			  !chown(procs, NOBODY, NOBODY));
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", home);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid) {
		kids[nkids++] = pid;
		return pid;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (!write_str(procs, "0"))
		_exit(10);
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		_exit(11);
	if (hide) {
		char dir[4400];

		cg_dir(deleg, dir, sizeof(dir));
		if (chmod(dir, 0700))
			_exit(17);
	}
	for (int i = 0; i < n; i += batch) {
		char dir[4400], p[4500];
		int k, m = i + batch < n ? batch : n - i;

		for (k = 0; k < m; k++) {
			cg_dir(deleg, dir, sizeof(dir));
			sprintf(dir + strlen(dir), "/%s%d", tag, i + k);
			snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
			if (mkdir(dir, 0755))
				_exit(12);
			if (!write_str(p, "0"))
				_exit(13);
			usleep(50);
			if (!write_str(procs, "0"))
				_exit(14);
		}
		if (sync_wr >= 0) {
			char c = 0;

			if (write(sync_wr, "b", 1) != 1 ||
			    read(sync_rd, &c, 1) != 1)
				_exit(15);
		}
		for (k = 0; k < m && !keep; k++) {
			cg_dir(deleg, dir, sizeof(dir));
			sprintf(dir + strlen(dir), "/%s%d", tag, i + k);
			if (rmdir(dir))
				_exit(16);
		}
	}
	_exit(0);
}

static void wait_ok(pid_t pid, const char *what)
{
	int st;

	cr_assert_eq(waitpid(pid, &st, 0), pid);
	for (int i = 0; i < nkids; i++)
		if (kids[i] == pid)
			kids[i] = kids[--nkids];
	cr_assert(WIFEXITED(st) && !WEXITSTATUS(st), "%s failed at step %d "
		  "(status %#x)", what, WIFEXITED(st) ? WEXITSTATUS(st) : -1, st);
}

/* A task in cgroup cg that wakes up every millisecond until killed. */
static void ticker_in(const char *cg)
{
	char procs[4500];
	pid_t pid;

	cg_dir(cg, procs, sizeof(procs));
	strcat(procs, "/cgroup.procs");
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (!write_str(procs, "0"))
			_exit(10);
		for (;;)
			usleep(1000);
	}
	kids[nkids++] = pid;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * nobody makes and removes `burst` cgroups as fast as it can while a
 * cgroup outside its subtree (base/live) keeps working; then a new one
 * (base/after) starts. It must get its series within 3 scrapes, with no
 * cgroup#ID series, the dead ones pruned, and no counter going down.
 */
static void burst_then_new_cgroup(const char *max_cgroups, int burst)
{
	char live[128], after[128], prefix[256], lost_prefix[] =
		"abicap_events_lost_total{event=\"sched_switch\"} ";
	char *t0, *t1, *t2, *t;
	int port = free_ports(1), found_at = -1;
	double took, lost1, lost2;
	pid_t pid;

	snprintf(live, sizeof(live), "%s/live", base);
	snprintf(after, sizeof(after), "%s/after", base);
	make_cg(live, false);
	start_serve(port, max_cgroups);
	ticker_in(live);
	usleep(300000);
	t0 = scrape_metrics(port);
	took = mono_s();
	pid = churn("b", burst, 1, -1, -1);
	wait_ok(pid, "the churn as nobody");
	took = mono_s() - took;
	t1 = scrape_metrics(port);
	assert_no_counter_went_down(t0, t1);
	fprintf(stderr, "serve_cgroups: %d cgroups made and removed by nobody "
		"in %.2f s (--max-cgroups %s); first scrape after: %g in the "
		"map, %g pruned, %d cgroup# lines, %g sched_switch lost\n", burst,
		took, max_cgroups, metric_sample(t1, "abicap_cgroups "),
		metric_sample(t1, "abicap_cgroups_pruned_total "),
		count_lines(t1, "cgroup=\"cgroup#"), metric_sample(t1, lost_prefix));
	make_cg(after, false);
	ticker_in(after);
	snprintf(prefix, sizeof(prefix), "abicap_context_switches_total{cgroup="
		 "\"%s\"", after);
	t = t1;
	for (int i = 0; i < 3 && found_at < 0; i++) {
		usleep(200000);
		t2 = scrape_metrics(port);
		assert_no_counter_went_down(t, t2);
		if (t != t1)
			free(t);
		t = t2;
		if (metric_sample(t2, prefix) > 0)
			found_at = i + 1;
	}
	cr_assert_gt(found_at, 0, "a cgroup made after the churn has no series "
		     "after 3 scrapes: %g of %s in the map, %g pruned",
		     metric_sample(t, "abicap_cgroups "), max_cgroups,
		     metric_sample(t, "abicap_cgroups_pruned_total "));
	cr_assert_eq(count_lines(t, "cgroup=\"cgroup#"), 0, "expected no "
		     "series of unnamed cgroups after the churn: %d",
		     count_lines(t, "cgroup=\"cgroup#"));
	cr_assert_gt(metric_sample(t, "abicap_cgroups_pruned_total "), 0);
	cr_assert_leq(metric_sample(t, "abicap_cgroups "), 8, "dead cgroups stay in "
		      "the map");
	snprintf(prefix, sizeof(prefix), "abicap_context_switches_total{cgroup="
		 "\"%s\"", live);
	cr_assert_gt(metric_sample(t, prefix), metric_sample(t0, prefix), "the live cgroup's "
		     "series");
	/* the removed cgroups' counts are not lost: kept in one series */
	cr_assert_gt(metric_sample(t, "abicap_context_switches_total{cgroup="
			    "\"(removed)\""), 0, "expected the removed cgroups' "
		     "switches kept:\n%s", metric_lines(t,
		     "abicap_context_switches_total{"));
	/* once the dead are gone, live cgroups lose nothing */
	lost1 = metric_sample(t, lost_prefix);
	usleep(500000);
	t2 = scrape_metrics(port);
	assert_no_counter_went_down(t, t2);
	lost2 = metric_sample(t2, lost_prefix);
	cr_assert_eq(lost2, lost1, "events lost after the churn: %g then %g",
		     lost1, lost2);
	fprintf(stderr, "serve_cgroups: the new cgroup had series at scrape %d "
		"after the churn; then %g in the map, %g pruned, %g lost\n",
		found_at, metric_sample(t2, "abicap_cgroups "),
		metric_sample(t2, "abicap_cgroups_pruned_total "), lost2);
	free(t0);
	free(t1);
	if (t != t1)
		free(t);
	free(t2);
	kill(srv.pid, SIGTERM);
	cr_assert_eq(wait_exit(&srv, 20), 0);
	srv.pid = 0;
}

Test(serve_cgroups, a_burst_of_cgroups_by_nobody_does_not_blind_serve)
{
	burst_then_new_cgroup("1024", 3000);
}

/*
 * The same from a subtree its owner made unreadable to others: serve, which
 * has no privilege left, cannot list it, so cannot name anything in it, and
 * must still not keep its dead ids.
 */
Test(serve_cgroups, a_burst_in_a_subtree_serve_cannot_read_does_not_blind_it)
{
	hide = true;
	burst_then_new_cgroup("1024", 2000);
}

Test(serve_cgroups, ordinary_churn_does_not_fill_a_small_map)
{
	burst_then_new_cgroup("16", 40);
}

static long rss_kb(pid_t pid)
{
	char file[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/status", (int)pid);
	f = fopen(file, "re");
	cr_assert(f, "%s: %s", file, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	cr_assert_gt(kb, 0, "no VmRSS in %s", file);
	return kb;
}

/*
 * Batches of 60 cgroups made by nobody, each batch alive across one scrape
 * (serve learns their names), then removed: what serve keeps must follow
 * the cgroups that exist, not every cgroup it ever saw.
 */
Test(serve_cgroups, names_of_removed_cgroups_are_forgotten)
{
	enum { BATCH = 60, BATCHES = 50, WARM = 5 };
	int port = free_ports(1), sync_to[2], sync_from[2];
	long rss_warm = 0, rss_end;
	char *t, *prev = NULL;
	pid_t pid;

	start_serve(port, "128");
	cr_assert(!pipe(sync_to) && !pipe(sync_from));
	pid = churn("n", BATCH * BATCHES, BATCH, sync_to[0], sync_from[1]);
	for (int b = 0; b < BATCHES; b++) {
		char c;

		cr_assert_eq(read(sync_from[0], &c, 1), 1, "the churn stopped");
		/* serve names what it does not know by walks, one per 100 ms */
		usleep(150000);
		t = scrape_metrics(port);
		if (b == 0)
			cr_assert_geq(metric_sample(t, "abicap_cgroups "), BATCH,
				      "the batch is in the map:\n%s",
				      metric_lines(t, "abicap_cgroups "));
		if (prev)
			assert_no_counter_went_down(prev, t);
		free(prev);
		prev = t;
		if (b == WARM)
			rss_warm = rss_kb(srv.pid);
		cr_assert_eq(write(sync_to[1], "g", 1), 1);
	}
	wait_ok(pid, "the churn as nobody");
	t = scrape_metrics(port);
	assert_no_counter_went_down(prev, t);
	free(prev);
	free(t);
	rss_end = rss_kb(srv.pid);
	fprintf(stderr, "serve_cgroups: %d cgroups named and removed: serve's "
		"RSS %ld kB after %d, %ld kB after all\n", BATCH * BATCHES,
		rss_warm, BATCH * (WARM + 1), rss_end);
	cr_assert_lt(rss_end - rss_warm, 1024, "serve grew by %ld kB for %d "
		     "removed cgroups", rss_end - rss_warm,
		     BATCH * (BATCHES - WARM - 1));
	kill(srv.pid, SIGTERM);
	cr_assert_eq(wait_exit(&srv, 20), 0);
	srv.pid = 0;
}

/* The sum of a family's samples over every series in the text. */
static double family_sum(const char *text, const char *family)
{
	double sum = 0;
	size_t n = strlen(family);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l)
		if (!strncmp(l, family, n) && l[n] == '{')
			sum += strtod(strchr(l + n, '}') + 1, NULL);
	return sum;
}

/*
 * Issue 32, item 1: nobody makes 1,200 cgroups and enters each once, then
 * leaves them empty but present: more live cgroups than the map holds
 * (1,024). A cgroup root makes afterwards must still get its series: the
 * idle ones are evicted, their counts kept in cgroup="(evicted)", and the
 * sum over the series never goes down.
 */
Test(serve_cgroups, idle_cgroups_of_a_tenant_do_not_hide_a_new_one)
{
	char after[128], prefix[256], *t, *prev;
	int port = free_ports(1);
	uint64_t end;
	double sum, psum;
	pid_t pid;

	keep = true;
	start_serve(port, "1024");
	pid = churn("i", 1200, 1, -1, -1);
	wait_ok(pid, "1,200 cgroups entered once by nobody");
	snprintf(after, sizeof(after), "%s/after", base);
	make_cg(after, false);
	ticker_in(after);
	snprintf(prefix, sizeof(prefix), "abicap_context_switches_total{cgroup="
		 "\"%s\"", after);
	prev = scrape_metrics(port);
	psum = family_sum(prev, "abicap_context_switches_total");
	/* the condition decides; the deadline only bounds a failure */
	end = mono_ns() + HANG_GUARD_S * 1000000000ull;
	for (;;) {
		usleep(200000);
		t = scrape_metrics(port);
		sum = family_sum(t, "abicap_context_switches_total");
		cr_assert_geq(sum, psum, "the switches summed over the series "
			      "went down: %.0f then %.0f", psum, sum);
		psum = sum;
		free(prev);
		prev = t;
		if (metric_sample(t, prefix) > 0)
			break;
		cr_assert(mono_ns() < end, "a cgroup made after 1,200 idle ones "
			  "has no series in %d s: %g in the map, %g evicted, "
			  "map full %g times", HANG_GUARD_S,
			  metric_sample(t, "abicap_cgroups "),
			  metric_sample(t, "abicap_cgroups_evicted_total "),
			  metric_sample(t, "abicap_updates_lost_total{reason="
					"\"cgroup_map_full\"} "));
	}
	cr_assert_gt(metric_sample(t, "abicap_cgroups_evicted_total "), 0);
	cr_assert_gt(metric_sample(t, "abicap_context_switches_total{cgroup="
				   "\"(evicted)\""), 0, "%s",
		     metric_lines(t, "abicap_context_switches_total{cgroup=\"("));
	cr_assert_leq(metric_sample(t, "abicap_cgroups "), 1024);
	fprintf(stderr, "serve_cgroups: 1,200 idle cgroups: the new one has its "
		"series; %g in the map, %g evicted\n",
		metric_sample(t, "abicap_cgroups "),
		metric_sample(t, "abicap_cgroups_evicted_total "));
	free(t);
	kill(srv.pid, SIGTERM);
	cr_assert_eq(wait_exit(&srv, 20), 0);
	srv.pid = 0;
	keep = false;
}

/*
 * As nobody: under deleg, a chain of `levels` cgroups of 250-byte names,
 * then `n` cgroups at its end, each entered once and left empty (a map
 * entry each). The chain's path into chain (for the caller's cleanup).
 */
static void idle_cgroups_deep(int levels, int n, char *chain, size_t len)
{
	char home[4400], dir[4400], p[4500];
	pid_t pid;
	int st;

	snprintf(chain, len, "%s", deleg);
	for (int i = 0; i < levels; i++) {
		size_t k = strlen(chain);

		snprintf(chain + k, len - k, "/%0249d", i);
	}
	cg_dir(deleg, home, sizeof(home));
	strcat(home, "/home");
	if (access(home, F_OK)) {
		cr_assert(!mkdir(home, 0755), "%s", strerror(errno));
		snprintf(p, sizeof(p), "%s/cgroup.procs", home);
		cr_assert(!chown(home, NOBODY, NOBODY) && !chown(p, NOBODY, NOBODY));
	}
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		char procs[4500];

		snprintf(procs, sizeof(procs), "%s/cgroup.procs", home);
		if (!write_str(procs, "0"))
			_exit(10);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(11);
		for (const char *s = strchr(chain + strlen(deleg), '/'); s;
		     s = strchr(s + 1, '/')) {
			const char *e = strchr(s + 1, '/');

			snprintf(dir, sizeof(dir), "%s%.*s", root,
				 (int)((e ? e : s + strlen(s)) - chain), chain);
			if (mkdir(dir, 0755))
				_exit(12);
		}
		for (int i = 0; i < n; i++) {
			cg_dir(chain, dir, sizeof(dir));
			sprintf(dir + strlen(dir), "/i%d", i);
			snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
			if (mkdir(dir, 0755) || !write_str(p, "0"))
				_exit(13);
			usleep(50);
			if (!write_str(procs, "0"))
				_exit(14);
		}
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && !WEXITSTATUS(st), "nobody's cgroups: step %d",
		  WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static int hang_port;
static useconds_t hang_us;

/* Connect, ask for /metrics, hang up after hang_us; for ever. */
static void *hang_loop(void *arg)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n"
				  "Accept-Encoding: identity\r\n\r\n";

	(void)arg;
	for (;;) {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_port = htons(hang_port) };
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (fd >= 0 && !connect(fd, (void *)&a, sizeof(a)) &&
		    write(fd, req, sizeof(req) - 1) > 0)
			usleep(hang_us);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

/* n such clients, threads of one process of nobody's. */
static pid_t hanging_clients(int port, int n, useconds_t us)
{
	pid_t pid = fork();
	pthread_t t;

	cr_assert_geq(pid, 0);
	if (pid) {
		kids[nkids++] = pid;
		return pid;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		_exit(11);
	hang_port = port;
	hang_us = us;
	for (int i = 1; i < n; i++)
		if (pthread_create(&t, NULL, hang_loop, NULL))
			_exit(12);
	hang_loop(NULL);
	_exit(0);
}

/* curl's exit status, the HTTP code and body size of one scrape. */
static int curl_scrape(int port, bool gzip, int *code, double *bytes)
{
	char cmd[256], out[128] = "";
	FILE *f;
	int st;

	snprintf(cmd, sizeof(cmd), "curl -s -m 10 %s -o /dev/null -w '%%{http_code} "
		 "%%{size_download}' http://127.0.0.1:%d/metrics",
		 gzip ? "--compressed" : "", port);
	f = popen(cmd, "r");
	cr_assert(f);
	if (!fgets(out, sizeof(out), f))
		out[0] = 0;
	st = pclose(f);
	*code = 0;
	*bytes = 0;
	sscanf(out, "%d %lf", code, bytes);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * Issue 32, item 2: nobody keeps 1,000 idle cgroups under 14 levels of
 * 250-byte names and runs four clients that ask for /metrics and hang up
 * after 0.5 s. A real scraper (curl -m 10, with and without gzip) is
 * answered every time, and serve renders a page at most every 200 ms
 * whatever the clients do.
 */
Test(serve_cgroups, hanging_clients_of_a_tenant_do_not_starve_a_scrape,
     .timeout = 240)
{
	int port = free_ports(1), code;
	char chain[4000], *t;
	double bytes, renders, secs;

	start_serve(port, "2048");
	idle_cgroups_deep(14, 1000, chain, sizeof(chain));
	hanging_clients(port, 4, 500000);
	for (int i = 0; i < 10; i++) {
		bool gz = i % 2;
		int rc = curl_scrape(port, gz, &code, &bytes);

		cr_assert(rc == 0 && code == 200, "scrape %d (%s): curl exit %d, "
			  "HTTP %d: a real scraper was starved", i,
			  gz ? "gzip" : "plain", rc, code);
		fprintf(stderr, "serve_cgroups: scrape %d (%s) under 4 hanging "
			"clients: %.0f bytes\n", i, gz ? "gzip" : "plain", bytes);
	}
	t = scrape_metrics(port);
	secs = metric_sample(t, "abicap_scrape_render_seconds ");
	renders = metric_sample(t, "abicap_cgroups ");
	fprintf(stderr, "serve_cgroups: 1,000 idle cgroups 14 levels deep: "
		"page %zu bytes, rendered in %.3f s, %g cgroups in the map\n",
		strlen(t), secs, renders);
	cr_assert_geq(renders, 1000);
	free(t);
	kill(srv.pid, SIGTERM);
	cr_assert_eq(wait_exit(&srv, 20), 0);
	srv.pid = 0;
}

/*
 * A scraper that keeps its connection (as Prometheus does): n requests on
 * one connection, gap_us apart. Returns how many were answered 200 in full
 * (Content-Length bytes of body).
 */
static char ka_why[256];

static int keepalive_scrapes(int port, int n, useconds_t gap_us)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n"
				  "Accept-Encoding: gzip\r\n\r\n";
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok = 0;
	size_t cap = 1 << 16, have = 0;
	char *buf = malloc(cap);

	cr_assert(fd >= 0 && buf);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(connect(fd, (void *)&a, sizeof(a)), 0, "%s", strerror(errno));
	for (int i = 0; i < n; i++, usleep(gap_us)) {
		char *end = NULL, *cl;
		size_t need = 0;
		ssize_t r = 0;

		if (write(fd, req, sizeof(req) - 1) != sizeof(req) - 1)
			break;
		for (;;) {
			if (have + 4096 > cap)
				buf = realloc(buf, cap *= 2);
			cr_assert(buf);
			buf[have] = 0;
			if (!end && (end = strstr(buf, "\r\n\r\n"))) {
				cl = strcasestr(buf, "content-length:");
				need = (size_t)(end + 4 - buf) +
				       (cl && cl < end ? strtoul(cl + 15, NULL, 10) : 0);
			}
			if (end && have >= need)
				break;
			r = read(fd, buf + have, cap - have - 1);
			if (r <= 0)
				break;
			have += (size_t)r;
		}
		if (!end || have < need || strncmp(buf, "HTTP/1.1 200", 12)) {
			snprintf(ka_why, sizeof(ka_why), "scrape %d: %s after %zu "
				 "bytes (%.40s)", i, r < 0 ? strerror(errno) :
				 r == 0 ? "closed" : "not 200", have, buf);
			break;
		}
		ok++;
		memmove(buf, buf + need, have - need);
		have -= need;
	}
	close(fd);
	free(buf);
	return ok;
}

/*
 * Clients on this host share its address: serve once counted them as one
 * client, so that a tenant's new connections evicted root's (CI, at a load
 * of 10: "curl exit 52, HTTP 0"). Nobody's 40 clients connect, ask and
 * hang up as fast as they can: serve evicts theirs, never a scraper's. A
 * Prometheus-like scraper keeps its connection for 5 scrapes 0.5 s apart
 * (before: it lost its connection at its second scrape), and 10 curl
 * scrapes, plain and gzip, are answered in full.
 */
Test(serve_cgroups, a_tenant_with_many_connections_cannot_evict_a_scrape,
     .timeout = 240)
{
	int port = free_ports(1), code, kept;
	char chain[4000], *t;
	double bytes, evicted;

	start_serve(port, "2048");
	idle_cgroups_deep(14, 300, chain, sizeof(chain));
	hanging_clients(port, 40, 0);
	kept = keepalive_scrapes(port, 5, 500000);
	cr_assert_eq(kept, 5, "a tenant's connections evicted a scraper's kept "
		     "connection: %d of 5 scrapes on it answered: %s", kept,
		     ka_why);
	for (int i = 0; i < 10; i++) {
		bool gz = i % 2;
		int rc = curl_scrape(port, gz, &code, &bytes);

		cr_assert(rc == 0 && code == 200, "scrape %d (%s): curl exit %d, "
			  "HTTP %d: a tenant's connections evicted a real "
			  "scraper", i, gz ? "gzip" : "plain", rc, code);
	}
	t = scrape_metrics(port);
	evicted = metric_sample(t, "abicap_http_connections_closed_total"
				"{reason=\"evicted\"} ");
	fprintf(stderr, "serve_cgroups: 15 scrapes beside 40 clients of nobody: "
		"all answered; %g of the tenant's connections evicted\n",
		evicted);
	cr_assert_gt(evicted, 0, "nobody's 40 clients were never over the "
		     "limit: no test");
	free(t);
	kill(srv.pid, SIGTERM);
	cr_assert_eq(wait_exit(&srv, 20), 0);
	srv.pid = 0;
}

/* As nobody: n empty cgroups deleg/<tag><i> (mkdir only). */
static void empty_cgroups(const char *tag, int n)
{
	pid_t pid = fork();
	int st;

	cr_assert_geq(pid, 0);
	if (!pid) {
		char dir[4400];

		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(11);
		for (int i = 0; i < n; i++) {
			cg_dir(deleg, dir, sizeof(dir));
			sprintf(dir + strlen(dir), "/%s%d", tag, i);
			if (mkdir(dir, 0755))
				_exit(12);
		}
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && !WEXITSTATUS(st), "nobody's mkdir: step %d",
		  WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/*
 * record -d 2 -p PP -b 1 (at nice -10) beside the ping-pong: events seen,
 * dropped.
 */
static void record_beside(const char *cap, pid_t pp, unsigned long long *seen,
			  unsigned long long *dropped, double *secs)
{
	unsigned long long recv = 0;
	char pid[16];
	const char *line;
	uint64_t t0 = mono_ns();
	struct run r;

	snprintf(pid, sizeof(pid), "%d", (int)pp);
	r = run_cmd((char *[]){ "nice", "-n", "-10", (char *)abicap_bin(),
				"record", "-o", (char *)cap, "--force", "-d", "2",
				"-p", pid, "-b", "1", NULL });
	*secs = (mono_ns() - t0) / 1e9;
	cr_assert_eq(r.code, 0, "%s", r.err);
	line = strstr(r.err, "events seen");
	cr_assert(line, "%s", r.err);
	while (line > r.err && line[-1] != ':')
		line--;
	cr_assert_eq(sscanf(line, " %llu events seen, %llu received, %llu dropped",
			    seen, &recv, dropped), 3, "%s", r.err);
	cr_assert_gt(*seen, 5000, "the ping-pong ran: %s", r.err);
	free(r.out);
	free(r.err);
}

/*
 * Issue 32, item 3: 30,000 empty cgroups of a tenant must not make record
 * drop: record -d 2 dropped 38-94% with them, 0% without (every cgroup's
 * cpu.stat was read while nothing drained the rings). The test records a
 * ping-pong on CPU 0 held to 10,000 round trips a second (about 40,000
 * events; -p: the machine's own storm is not recorded) into the smallest
 * buffer (-b 1: a fraction of a second of it on CPU 0's ring). A drain
 * that keeps going drops nothing, loaded or not; with the defect made
 * again (the walk in the drain's thread, every cgroup's cpu.stat read)
 * this test saw 85% dropped. The oracle is the same record just before
 * the cgroups are made: they may add at most 1% of the events to what it
 * dropped. (Recording the machine's storm at full speed instead, two
 * records of it on CI's loaded run differed by more than any margin,
 * 19.7% and 23.1% dropped, and then worse: that measured the machine.)
 * Run times are printed, not judged.
 */
Test(serve_cgroups, many_empty_cgroups_do_not_make_record_drop, .timeout = 180)
{
	char *cap = scratch_path("many.abicap");
	unsigned long long seen0, dropped0, seen, dropped;
	double secs0, secs;
	pid_t pp;

	pp = fork();
	cr_assert_geq(pp, 0);
	if (!pp) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(open("/dev/null", O_WRONLY), 1);
		execl("build/pingpong", "pingpong", "120", "0", "0", "10000",
		      (char *)NULL);
		_exit(127);
	}
	kids[nkids++] = pp;
	usleep(300000);
	record_beside(cap, pp, &seen0, &dropped0, &secs0);
	empty_cgroups("e", 30000);
	record_beside(cap, pp, &seen, &dropped, &secs);
	fprintf(stderr, "serve_cgroups: record -d 2 -b 1 beside the paced "
		"ping-pong: %.2f s, %llu of %llu events dropped; beside 30,000 "
		"empty cgroups too: %.2f s, %llu of %llu\n", secs0, dropped0,
		seen0, secs, dropped, seen);
	cr_assert_leq((double)dropped / (double)seen,
		      (double)dropped0 / (double)seen0 + 0.01,
		      "30,000 empty cgroups made record drop %llu of %llu events, "
		      "%llu of %llu without them", dropped, seen, dropped0,
		      seen0);
}
