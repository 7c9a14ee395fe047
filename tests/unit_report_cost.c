// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Issue 21 defect 7 outside the analysis: report's time and memory grow at
 * most linearly with the crafted inputs of the issue (build/capgen):
 *   unused-cgroups  names of 2 M cgroup ids no record uses (2.56 GB before)
 *   cgroup-gaps     cgroup blocks numbered 0, 2, 4, ... (a count per gap)
 *   many-cgroups    --by cgroup over 10 k .. 40 k cgroups (linear lookups)
 *   cgroup-waits    heatmap --cgroup over 20 k cgroups with a wait each
 *   many-pids       timechart of 200 k tasks (a lane each: 285 MB)
 *   unused-cgroups  script over 500 k names (each held: ~250 MB)
 * Decided by the child's own CPU time and peak RSS (wait4), as ratios
 * between sizes with a generous floor, not by a wall-clock window.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

TestSuite(report_cost, .init = scratch_init, .fini = scratch_fini);

struct cost {
	int code;
	double cpu_s; /* user + system */
	long rss_kb; /* peak */
};

static struct cost run_cost(char *const argv[])
{
	struct cost c = { 0 };
	struct rusage ru;
	int status;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	cr_assert_eq(wait4(pid, &status, 0, &ru), pid);
	cr_assert(WIFEXITED(status));
	c.code = WEXITSTATUS(status);
	c.cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		  ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	c.rss_kb = ru.ru_maxrss;
	return c;
}

static void gen(const char *kind, const char *n, const char *out)
{
	struct cost c = run_cost((char *[]){ "build/capgen", (char *)kind,
					     (char *)n, (char *)out, NULL });

	cr_assert_eq(c.code, 0, "capgen %s %s failed", kind, n);
}

static struct cost report(const char *cap, const char *by, int code)
{
	char *argv[] = { (char *)abicap_bin(), "report", (char *)cap,
			 by ? "--by" : NULL, (char *)by, NULL };
	struct cost c = run_cost(argv);

	cr_assert_eq(c.code, code, "report %s: exit %d", cap, c.code);
	return c;
}

/*
 * 2 M names no record uses: memory for what the records use, plus the
 * names themselves compactly (the file's 21 MB of blocks): under 200 MB
 * (2.56 GB before).
 */
Test(report_cost, unused_cgroup_names_keep_memory_bounded, .timeout = 120)
{
	char *cap = scratch_path("u.abicap");
	struct cost c;

	gen("unused-cgroups", "2000000", cap);
	c = report(cap, NULL, 0);
	cr_assert_lt(c.rss_kb, 200 * 1024, "peak RSS %ld KB", c.rss_kb);
	c = report(cap, "cgroup", 0);
	cr_assert_lt(c.rss_kb, 200 * 1024, "--by cgroup: peak RSS %ld KB",
		     c.rss_kb);
}

/* CPU time of four times the input at most eight times (plus 0.3 s). */
static void linear(const char *kind, const char *n, const char *n4,
		   const char *by, int code)
{
	char *a = strdup(scratch_path("a.abicap")),
	     *b = strdup(scratch_path("b.abicap"));
	struct cost x, y;

	gen(kind, n, a);
	gen(kind, n4, b);
	x = report(a, by, code);
	y = report(b, by, code);
	cr_assert_lt(y.cpu_s, 8 * x.cpu_s + 0.3, "%s: %s in %.2f s, %s in "
		     "%.2f s: superlinear", kind, n, x.cpu_s, n4, y.cpu_s);
	cr_assert_lt(y.rss_kb, 8 * x.rss_kb, "%s: %s in %ld KB, %s in %ld KB",
		     kind, n, x.rss_kb, n4, y.rss_kb);
	free(a);
	free(b);
}

/* exit 5: every other block is missing (the file is damaged) */
Test(report_cost, cgroup_block_gaps_cost_linear_time, .timeout = 120)
{
	linear("cgroup-gaps", "25000", "100000", NULL, 5);
}

Test(report_cost, by_cgroup_costs_linear_time, .timeout = 120)
{
	linear("many-cgroups", "10000", "40000", "cgroup", 0);
}

/* The waits a heat map page says it drew ("waits":N in its data). */
static long page_waits(const char *page)
{
	size_t len;
	char *html = read_file(page, &len), *p;
	long n;

	cr_assert(html, "no page %s", page);
	p = strstr(html, "\"waits\":");
	cr_assert(p, "no waits in %s", page);
	n = strtol(p + 8, NULL, 10);
	free(html);
	return n;
}

/*
 * heatmap --cgroup kept a full grid (columns x 40 latency rows) per cgroup
 * seen: 48 KB each at the default width, 20 k cgroups with one wait each
 * cost 960 MB. Now what the waits fill: under 100 MB, and every wait drawn.
 */
Test(report_cost, heatmap_by_cgroup_keeps_memory_bounded, .timeout = 120)
{
	char *cap = strdup(scratch_path("w.abicap")),
	     *page = strdup(scratch_path("w.html"));
	char *bin = (char *)abicap_bin();
	struct cost c;
	long rss;

	gen("cgroup-waits", "20000", cap);
	c = run_cost((char *[]){ bin, "heatmap", cap, "-o", page, "--cgroup",
				 "/m", NULL });
	cr_assert_eq(c.code, 0, "heatmap --cgroup /m: exit %d", c.code);
	rss = c.rss_kb;
	cr_assert_lt(rss, 100 * 1024, "peak RSS %ld KB", rss);
	cr_assert_eq(page_waits(page), 20000);
	c = run_cost((char *[]){ bin, "heatmap", cap, "-o", page, "--force",
				 "--cgroup", "/m/c7", NULL });
	cr_assert_eq(c.code, 0);
	cr_assert_eq(page_waits(page), 1, "--cgroup /m/c7 is one wait");
	c = run_cost((char *[]){ bin, "heatmap", cap, "-o", page, "--force",
				 NULL });
	cr_assert_eq(c.code, 0);
	cr_assert_eq(page_waits(page), 20000);
	printf("report_cost: heatmap --cgroup over 20000 cgroups: peak RSS "
	       "%ld KB\n", rss);
	free(cap);
	free(page);
}

/*
 * timechart of 200,000 tasks (capgen many-pids: every switch between two
 * tasks never seen before; a 1.5 MB file): a lane for each took 285 MB and
 * wrote a 70 MB page (1.1 GB and 137 MB at 800,000 tasks). Now the 5,000
 * tasks --max-lanes allows by default have lanes, the rest about 100
 * bytes each: within twice report's own peak on the same capture, and a
 * page under 4 MB that says how many tasks it left out.
 */
#define LEFT_OUT "5000 task lanes of 199998 tasks: <b>194998 more tasks " \
	"have no lane</b>"
Test(report_cost, timechart_of_many_tasks_keeps_memory_bounded, .timeout = 120)
{
	char *cap = strdup(scratch_path("t.abicap")),
	     *page = strdup(scratch_path("t.html"));
	struct cost r, t;
	struct stat st;
	size_t len;
	char *html;

	gen("many-pids", "100000", cap);
	r = report(cap, NULL, 0);
	t = run_cost((char *[]){ (char *)abicap_bin(), "timechart", cap, "-o",
				 page, NULL });
	cr_assert_eq(t.code, 0, "timechart: exit %d", t.code);
	cr_assert_lt(t.rss_kb, 2 * r.rss_kb, "timechart's peak RSS %ld KB, "
		     "report's %ld KB", t.rss_kb, r.rss_kb);
	cr_assert_eq(stat(page, &st), 0);
	cr_assert_lt(st.st_size, 4 << 20, "a %lld-byte page",
		     (long long)st.st_size);
	html = read_file(page, &len);
	cr_assert(memmem(html, len, LEFT_OUT, strlen(LEFT_OUT)),
		  "the legend does not count the tasks left out");
	printf("report_cost: timechart of 199998 tasks: peak RSS %ld KB "
	       "(report %ld KB), page %lld bytes\n", t.rss_kb, r.rss_kb,
	       (long long)st.st_size);
	free(html);
	free(cap);
	free(page);
}

/*
 * script over 500,000 cgroup names no record uses: a name is kept for
 * printing only once a record uses it (each held name costs ~400 bytes:
 * 2 M names took 1.0 GB, 500,000 about 250 MB); now the reader's table
 * and an index: under 100 MB.
 */
Test(report_cost, script_keeps_unused_cgroup_names_cheap, .timeout = 120)
{
	char *cap = strdup(scratch_path("s.abicap"));
	struct cost c;

	gen("unused-cgroups", "500000", cap);
	c = run_cost((char *[]){ (char *)abicap_bin(), "script", cap, NULL });
	cr_assert_eq(c.code, 0, "script: exit %d", c.code);
	cr_assert_lt(c.rss_kb, 100 * 1024, "peak RSS %ld KB", c.rss_kb);
	printf("report_cost: script over 500000 unused cgroup names: peak RSS "
	       "%ld KB\n", c.rss_kb);
	free(cap);
}
