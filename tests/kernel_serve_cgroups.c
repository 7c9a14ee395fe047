// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * serve against cgroup churn by an unprivileged user (issue 23 #4, #5): a
 * cgroup v2 subtree delegated to uid 65534 (nobody), as systemd delegates
 * one to every user session, in which a process running as nobody makes,
 * uses and removes cgroups in bulk. serve watches the test's subtree only
 * (--cgroup), so other tests' cgroups on the machine do not count.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
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
		for (k = 0; k < m; k++) {
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
