// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Container-host observability on real cgroups: the test makes a cgroup v2
 * subtree with a CPU-hungry workload in one cgroup and the latency-sensitive
 * ping-pong in another (and in a Docker-shaped scope), then checks where
 * trace, record/report --by and serve attribute the work, scrapes serve
 * with promtool and a real Prometheus server, and feeds it bad input.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "event/cgroup.h"
#include "harness.h"
#include "promcheck.h"
#include "lib/util.h"

#define DOCKER_ID "3f4e5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081"

static char root[4096]; /* the cgroup v2 mount */
static char base[64]; /* "/abicap-test-PID", in the hierarchy */
static char hungry[128], latency[128], docker[256];
/*
 * Containers and pods count only where their runtime puts them, at the
 * hierarchy's root (/system.slice/docker-<id>.scope, /kubepods/...): the
 * directories the tests make there, removed in reverse order.
 */
static char hostmade[8][256];
static int nhostmade;
/* deeper ones, removed before extra[] */
static const char *extra_deep[32];
static int nextra_deep;
static char extra[24][160]; /* made by a test, removed in reverse order */
static int nextra;
static pid_t workers[32], daemons[4];
static int nworkers, ndaemons;

static void cg_dir(const char *cg, char *out, size_t len)
{
	snprintf(out, len, "%s%s", root, cg);
}

/* Every directory of cg (from the root) that is missing, made and noted. */
static void host_place(const char *cg)
{
	char dir[4400], *p;

	cg_dir(cg, dir, sizeof(dir));
	for (p = dir + strlen(root) + 1;; p++) {
		char c = *p;

		if (c && c != '/')
			continue;
		*p = 0;
		if (!mkdir(dir, 0755)) {
			cr_assert_lt(nhostmade, 8);
			snprintf(hostmade[nhostmade++], sizeof(hostmade[0]), "%s",
				 dir + strlen(root));
		} else {
			cr_assert_eq(errno, EEXIST, "mkdir %s: %s", dir,
				     strerror(errno));
		}
		*p = c;
		if (!c)
			break;
	}
}

/*
 * The directory of cgroup cg opened one level at a time (openat): for
 * paths past PATH_MAX. -1 with errno.
 */
static int cg_open(const char *cg)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), nfd;
	const char *p = cg, *end;

	while (fd >= 0 && *p) {
		char comp[256];

		p += strspn(p, "/");
		if (!*p)
			break;
		end = p + strcspn(p, "/");
		snprintf(comp, sizeof(comp), "%.*s", (int)(end - p), p);
		nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = nfd;
		p = end;
	}
	return fd;
}

/* mkdir (as the caller) of cgroup cg, any length: 0 or -1 */
static int cg_mkdir(const char *cg)
{
	char *copy = strdup(cg), *slash = strrchr(copy, '/');
	int fd, r;

	*slash = 0;
	fd = cg_open(copy);
	r = fd < 0 ? -1 : mkdirat(fd, slash + 1, 0755);
	if (fd >= 0)
		close(fd);
	free(copy);
	return r;
}

/* rmdir of cgroup cg, any length, once its tasks have left it */
static void rmdir_deep(const char *cg)
{
	char *copy = strdup(cg), *slash = strrchr(copy, '/');
	int fd;

	*slash = 0;
	fd = cg_open(copy);
	for (int t = 0; fd >= 0 && t < 100 && unlinkat(fd, slash + 1, AT_REMOVEDIR) &&
	     errno == EBUSY; t++)
		usleep(20000);
	if (fd >= 0)
		close(fd);
	free(copy);
}

static void rmdir_when_empty(const char *cg)
{
	char dir[4400];

	cg_dir(cg, dir, sizeof(dir));
	/* a killed task leaves its cgroup a moment later */
	for (int t = 0; t < 100 && rmdir(dir) && errno == EBUSY; t++)
		usleep(20000);
}

static void make_cgroups(void)
{
	char err[256], dir[4352];

	require_kernel();
	cr_assert_eq(cgroup_root(root, sizeof(root), err, sizeof(err)), 0, "%s",
		     err);
	snprintf(base, sizeof(base), "/abicap-test-%d", getpid());
	snprintf(hungry, sizeof(hungry), "%s/hungry", base);
	snprintf(latency, sizeof(latency), "%s/latency", base);
	snprintf(docker, sizeof(docker), "/system.slice/docker-%s.scope",
		 DOCKER_ID);
	const char *dirs[] = { base, hungry, latency };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		cg_dir(dirs[i], dir, sizeof(dir));
		cr_assert(!mkdir(dir, 0755) || errno == EEXIST, "mkdir %s: %s",
			  dir, strerror(errno));
	}
	host_place(docker);
}

/* Start argv in cgroup cg (the child moves itself before exec). */
static pid_t start_in(const char *cg, char *const argv[])
{
	char procs[4400];
	pid_t pid;

	cg_dir(cg, procs, sizeof(procs));
	strcat(procs, "/cgroup.procs");
	cr_assert_lt(nworkers, (int)(sizeof(workers) / sizeof(workers[0])));
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		int fd = open(procs, O_WRONLY), null = open("/dev/null", O_RDWR);

		/* a test killed at its timeout leaves no spinner behind */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd < 0 || write(fd, "0", 1) != 1)
			_exit(126);
		close(fd);
		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	workers[nworkers++] = pid;
	return pid;
}

/* Two CPU spinners in hungry, the ping-pong (its two threads) in latency. */
static pid_t start_workloads(const char *pp_cg, double secs, pid_t *spinner)
{
	char s[32];

	/* the spinners spin until stop_workloads() kills them */
	snprintf(s, sizeof(s), "%g", secs);
	*spinner = start_in(hungry, (char *[]){ "sh", "-c", "while :; do :; done",
						NULL });
	start_in(hungry, (char *[]){ "sh", "-c", "while :; do :; done", NULL });
	return start_in(pp_cg, (char *[]){ "build/pingpong", s, "-1", NULL });
}

/*
 * Until the ping-pong (pid) runs its two threads and its main thread waits
 * for them (300 ms on an idle machine): the deadline a hang guard.
 */
static void wait_pingpong(pid_t pid)
{
	uint64_t end = mono_ns() + HANG_GUARD_S * 1000000000ull;
	char dir[64], stat[64], buf[256] = "";
	const char *st;
	FILE *f;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	snprintf(stat, sizeof(stat), "/proc/%d/stat", pid);
	for (;;) {
		f = fopen(stat, "re");
		if (!f || !fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		if (f)
			fclose(f);
		st = strrchr(buf, ')');
		if (dir_entries(dir) >= 3 && st && st[1] == ' ' && st[2] == 'S')
			return;
		cr_assert(mono_ns() < end, "expected the ping-pong's two threads "
			  "running within %d s; %s: %s", HANG_GUARD_S, stat, buf);
		usleep(10000);
	}
}

static void stop_workloads(void)
{
	/* serve and prometheus, in case a failed assertion left them */
	for (int i = 0; i < ndaemons; i++)
		if (!kill(daemons[i], SIGKILL))
			waitpid(daemons[i], NULL, 0);
	ndaemons = 0;
	for (int i = 0; i < nworkers; i++) {
		kill(workers[i], SIGKILL);
		waitpid(workers[i], NULL, 0);
	}
	nworkers = 0;
}

static void remove_cgroups(void)
{
	const char *dirs[] = { hungry, latency, base };

	stop_workloads();
	while (nextra_deep > 0)
		rmdir_deep(extra_deep[--nextra_deep]);
	while (nextra > 0)
		rmdir_when_empty(extra[--nextra]);
	while (nhostmade > 0)
		rmdir_when_empty(hostmade[--nhostmade]);
	for (size_t i = 0; base[0] && i < sizeof(dirs) / sizeof(dirs[0]); i++)
		rmdir_when_empty(dirs[i]);
	scratch_fini();
}

static void setup(void)
{
	scratch_init();
	make_cgroups();
}

TestSuite(containers, .init = setup, .fini = remove_cgroups, .timeout = 120);

/* A cgroup base/name made for one test (removed by the suite's fini). */
static const char *extra_cgroup(const char *name)
{
	char dir[4400];

	cr_assert_lt(nextra, 24);
	snprintf(extra[nextra], sizeof(extra[0]), "%s/%s", base, name);
	cg_dir(extra[nextra], dir, sizeof(dir));
	cr_assert(!mkdir(dir, 0755), "mkdir %s: %s", dir, strerror(errno));
	return extra[nextra++];
}

static bool under(const char *path, const char *cg)
{
	size_t n = strlen(cg);

	return path && !strncmp(path, cg, n) && (!path[n] || path[n] == '/');
}

Test(containers, trace_names_each_task_cgroup_and_filters_a_subtree)
{
	json_t *j, *e;
	pid_t spinner;
	int hungry_seen = 0, ping_seen = 0, kept = 0;
	struct run r;
	char *line, *save;

	/*
	 * The ping-pong runs until the test's end kills it: reading the first
	 * trace's JSON took over 30 s once on a busy machine, and the
	 * --cgroup trace after it then found the ping-pong gone.
	 */
	wait_pingpong(start_workloads(latency, 600, &spinner));
	r = run_cmd((char *[]){ (char *)abicap_bin(), "trace", "-f", "json", "-d",
			    "1.5", "-e", "sched_switch,sched_wakeup", NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	for (line = strtok_r(r.out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		j = json_loads(line, 0, NULL);
		cr_assert(j, "not JSON: %s", line);
		e = json_object_get(j, "next_pid");
		if (e && json_integer_value(e) == spinner) {
			cr_assert(under(json_string_value(json_object_get(j,
				"next_cgroup")), hungry), "%s", line);
			hungry_seen++;
		}
		e = json_object_get(j, "next_comm");
		if (e && !strcmp(json_string_value(e), "abc_ping")) {
			cr_assert_str_eq(json_string_value(json_object_get(j,
				"next_cgroup")), latency, "%s", line);
			cr_assert(json_is_null(json_object_get(j,
				"next_container")));
			ping_seen++;
		}
		json_decref(j);
	}
	cr_assert_gt(hungry_seen, 0, "no switch to the spinner (pid %d)", spinner);
	cr_assert_gt(ping_seen, 10, "abc_ping ran %d times", ping_seen);
	free(r.out);
	free(r.err);

	/* --cgroup: every event involves a task of the subtree */
	r = run_cmd((char *[]){ (char *)abicap_bin(), "trace", "-f", "json", "-d",
			    "1.5", "--cgroup", latency, NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	for (line = strtok_r(r.out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		j = json_loads(line, 0, NULL);
		cr_assert(j);
		if (json_object_get(j, "next_cgroup"))
			cr_assert(under(json_string_value(json_object_get(j,
				  "prev_cgroup")), latency) ||
				  under(json_string_value(json_object_get(j,
				  "next_cgroup")), latency), "%s", line);
		else
			cr_assert(under(json_string_value(json_object_get(j,
				  "cgroup")), latency), "%s", line);
		kept++;
		json_decref(j);
	}
	cr_assert_gt(kept, 100, "only %d events in the ping-pong's cgroup: %s", kept, r.err);
	free(r.out);
	free(r.err);
}

Test(containers, trace_refuses_an_unknown_cgroup)
{
	struct run r = run_cmd((char *[]){ (char *)abicap_bin(), "trace", "-d", "1",
				       "--cgroup", "/no/such/cgroup", NULL });

	cr_assert_eq(r.code, 2, "%s", r.err);
	cr_assert(strstr(r.err, "/no/such/cgroup"), "%s", r.err);
	cr_assert_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1,
		     "one line: %s", r.err);
}

/* The group named name in a report --by, or NULL. */
static json_t *group(json_t *rep, const char *name)
{
	json_t *g;
	size_t i;

	json_array_foreach(json_object_get(rep, "groups"), i, g)
		if (!strcmp(json_string_value(json_object_get(g, "group")), name))
			return g;
	return NULL;
}

Test(containers, report_groups_a_recording_by_container_and_cgroup)
{
	char *cap = scratch_path("ct.abicap");
	long long rq, left;
	pid_t spinner;
	json_t *rep, *g;
	struct run r;

	wait_pingpong(start_workloads(docker, 600, &spinner));
	/* its reader gets the CPU time it needs on a loaded machine (issue 36) */
	r = run_cmd((char *[]){ "nice", "-n", "-10", (char *)abicap_bin(),
			    "record", "-o", cap, "-d", "2", NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "report", cap, "--by",
			    "container", "-f", "json", NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	rep = json_loads(r.out, 0, NULL);
	cr_assert(rep);
	g = group(rep, "docker:" "3f4e5a6b7c8d");
	cr_assert(g, "no docker:3f4e5a6b7c8d group in %s", r.out);
	/* abc_ping and abc_pong, nothing else */
	cr_assert_eq(json_integer_value(json_object_get(g, "tasks")), 2,
		     "expected 2 tasks (abc_ping, abc_pong) in docker:3f4e5a6b7c8d, "
		     "report has %lld", json_integer_value(json_object_get(g, "tasks")));
	/*
	 * the ping-pong ran: its waits were measured, or (a loaded machine
	 * where record dropped) left out across the drops, which the report
	 * counts (CI's loaded run once measured 100 or fewer)
	 */
	rq = json_integer_value(json_object_get(g, "rq_samples"));
	left = json_integer_value(json_object_get(json_object_get(rep, "lost"),
						  "waits_left_out"));
	cr_assert(rq > 0 && rq + left > 100, "docker:3f4e5a6b7c8d: %lld waits "
		  "measured, %lld left out across drops", rq, left);
	cr_assert(group(rep, "(host)"), "the spinners are on the host");
	json_decref(rep);

	r = run_cmd((char *[]){ (char *)abicap_bin(), "report", cap, "--by",
			    "cgroup", "-f", "json", NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	rep = json_loads(r.out, 0, NULL);
	g = group(rep, hungry);
	cr_assert(g, "no %s group", hungry);
	/* the two spinners (each a shell, maybe with its timeout parent) */
	cr_assert_geq(json_integer_value(json_object_get(g, "tasks")), 2);
	cr_assert_gt(json_integer_value(json_object_get(g, "involuntary")), 0);
	cr_assert(group(rep, docker), "no %s group", docker);
	json_decref(rep);

	/* without --by, each task says where it ran */
	r = run_cmd((char *[]){ (char *)abicap_bin(), "report", cap, "-f", "json",
				NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	rep = json_loads(r.out, 0, NULL);
	{
		json_t *t;
		size_t i;
		int pings = 0;

		json_array_foreach(json_object_get(rep, "tasks"), i, t) {
			if (strcmp(json_string_value(json_object_get(t, "comm")),
				   "abc_ping"))
				continue;
			cr_assert_str_eq(json_string_value(json_object_get(t,
					 "cgroup")), docker);
			cr_assert_str_eq(json_string_value(json_object_get(t,
					 "container")), "docker:3f4e5a6b7c8d");
			pings++;
		}
		cr_assert_eq(pings, 1);
	}
	json_decref(rep);

	r = run_cmd((char *[]){ (char *)abicap_bin(), "report", cap, "--by", "pod",
			    NULL });
	cr_assert_eq(r.code, 2);
	cr_assert(strstr(r.err, "use task, cgroup, container or process"), "%s",
		  r.err);
}

#define NOBODY 65534

/* As nobody: every mkdir of dirs, in order (0, else the failing one + 1). */
static int mkdirs_as_nobody(const char *const *dirs, int n)
{
	int st = 0;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(100);
		for (int i = 0; i < n; i++)
			if (cg_mkdir(dirs[i]))
				_exit(i + 1);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

/* A busy task in cg (any length), moved there by root, then running as nobody. */
static pid_t spin_as_nobody(const char *cg)
{
	pid_t pid;

	cr_assert_lt(nworkers, (int)(sizeof(workers) / sizeof(workers[0])));
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		int dfd = cg_open(cg);
		int fd = dfd >= 0 ? openat(dfd, "cgroup.procs", O_WRONLY) : -1;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd < 0 || write(fd, "0", 1) != 1)
			_exit(126);
		close(fd);
		close(dfd);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(125);
		/*
		 * 5 ms on CPU, then a 1 ms sleep: busy, and switching (a
		 * pure spinner on an idle CPU may run a second unswitched)
		 */
		for (;;) {
			uint64_t t = mono_ns();

			while (mono_ns() - t < 5000000)
				;
			usleep(1000);
		}
	}
	workers[nworkers++] = pid;
	return pid;
}

/* Start serve on port; returns once it says it is serving. */
static void start_serve(struct child *ch, int port, const char *cg)
{
	char listen[64], seen[1024];

	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	if (cg)
		spawn(ch, (char *[]){ (char *)abicap_bin(), "serve", "--listen",
				      listen, "--cgroup", (char *)cg, NULL });
	else
		spawn(ch, (char *[]){ (char *)abicap_bin(), "serve", "--listen",
				      listen, NULL });
	daemons[ndaemons++] = ch->pid;
	wait_for_stderr(ch, "serving http://", seen, sizeof(seen));
}

/* The last serve start_serve() started, stopped. */
static void stop_serve(struct child *ch)
{
	kill(ch->pid, SIGTERM);
	free(read_all(ch->err_fd));
	wait_exit(ch, 10);
	ndaemons--;
}

/* One raw HTTP exchange: the status code of the answer (0: none). */
static int http(int port, const char *req, size_t len, char **body)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), code = 0;
	char *resp;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(connect(fd, (void *)&a, sizeof(a)), 0, "%s", strerror(errno));
	cr_assert_eq(write(fd, req, len), (ssize_t)len);
	shutdown(fd, SHUT_WR);
	resp = read_all(fd);
	close(fd);
	sscanf(resp, "HTTP/1.%*d %d", &code);
	if (body)
		*body = resp;
	else
		free(resp);
	return code;
}

Test(containers, serve_metrics_per_cgroup_pass_promtool_and_prometheus)
{
	int port = free_ports(2), pport = port + 1;
	char prefix[256], cfg[8192], query[512], why[256], *text, *path;
	const char *bad;
	struct child srv, prom;
	pid_t spinner;
	struct run r;
	FILE *f;
	bool found = false, up = false, bad_found = false;

	/* a cgroup whose name is not UTF-8 must not take the node down */
	bad = extra_cgroup("bad\xff");
	start_serve(&srv, port, NULL);
	start_in(bad, (char *[]){ "sleep", "100", NULL });
	start_workloads(latency, 4, &spinner);
	/*
	 * until the workloads made what is checked below (3 s on an idle
	 * machine), the deadline a hang guard: a busy one runs them slower
	 */
	snprintf(prefix, sizeof(prefix), "abicap_context_switches_total{cgroup="
		 "\"%s/bad\\\\xff/\"", base);
	for (uint64_t end = mono_ns() + HANG_GUARD_S * 1000000000ull;;) {
		char lat[256], cpu[256];

		sleep(1);
		text = scrape_metrics(port);
		snprintf(lat, sizeof(lat), "abicap_runqueue_latency_seconds_"
			 "count{cgroup=\"%s\"", latency);
		snprintf(cpu, sizeof(cpu), "abicap_cpu_seconds_total{cgroup="
			 "\"%s\"", hungry);
		if ((metric_sample(text, prefix) >= 0 &&
		     metric_sample(text, lat) > 100 &&
		     metric_sample(text, cpu) > 1.0) || mono_ns() > end)
			break;
		free(text);
	}
	cr_assert_geq(metric_sample(text, prefix), 0, "expected a series for "
		      "%s/bad\\xff/; the scrape's lines of it:\n%s", base,
		      metric_lines(text, prefix));
	cr_assert_eq(prom_check(text, strlen(text), NULL, NULL, why, sizeof(why)),
		     0, "%s", why);
	snprintf(prefix, sizeof(prefix),
		 "abicap_runqueue_latency_seconds_count{cgroup=\"%s\"", latency);
	cr_assert_gt(metric_sample(text, prefix), 100, "expected over 100 "
		     "waits of %s:\n%s", latency, metric_lines(text, prefix));
	snprintf(prefix, sizeof(prefix), "abicap_cpu_seconds_total{cgroup=\"%s\"",
		 hungry);
	cr_assert_gt(metric_sample(text, prefix), 1.0, "expected over 1 CPU "
		     "second of two spinners (in %d s):\n%s", HANG_GUARD_S,
		     metric_lines(text, prefix));
	snprintf(prefix, sizeof(prefix), "abicap_context_switches_total{cgroup=\"%s\"",
		 hungry);
	cr_assert_gt(metric_sample(text, prefix), -1);
	cr_assert_eq(metric_sample(text, "abicap_abi_contract_status{event=\"sched_switch\",item=\"tracepoint\"}"), 0);
	cr_assert_eq(metric_sample(text, "abicap_events_lost_total{event=\"sched_switch\"}"), 0);

	/* promtool reads it as valid exposition text */
	path = scratch_path("metrics.txt");
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	snprintf(cfg, sizeof(cfg), "promtool check metrics < %s", path);
	cr_assert_eq(system(cfg), 0, "promtool check metrics failed");
	free(text);

	/* a real Prometheus server scrapes it and answers PromQL */
	path = scratch_path("prometheus.yml");
	f = fopen(path, "w");
	fprintf(f, "global:\n  scrape_interval: 1s\nscrape_configs:\n"
		"  - job_name: abicap\n    static_configs:\n"
		"      - targets: ['127.0.0.1:%d']\n", port);
	fclose(f);
	snprintf(cfg, sizeof(cfg), "--config.file=%s", path);
	snprintf(query, sizeof(query), "--web.listen-address=127.0.0.1:%d", pport);
	spawn(&prom, (char *[]){ "prometheus", cfg, query,
				 (char *)"--storage.tsdb.path", scratch_path("tsdb"),
				 NULL });
	daemons[ndaemons++] = prom.pid;
	for (int t = 0; t < 60 && !(found && up && bad_found); t++) {
		char cmd[1024];

		sleep(1);
		snprintf(cmd, sizeof(cmd), "curl -sf 'http://127.0.0.1:%d/api/v1/"
			 "query' --data-urlencode 'query=abicap_runqueue_latency_"
			 "seconds_count{cgroup=\"%s\"} > 0'", pport, latency);
		r = run_cmd((char *[]){ "sh", "-c", cmd, NULL });
		found = found || (r.code == 0 && strstr(r.out, latency) &&
				  strstr(r.out, "\"status\":\"success\""));
		free(r.out);
		free(r.err);
		/* the target is up: the scrape was accepted as a whole */
		snprintf(cmd, sizeof(cmd), "curl -sf 'http://127.0.0.1:%d/api/v1/"
			 "query' --data-urlencode 'query=up{job=\"abicap\"} == 1'",
			 pport);
		r = run_cmd((char *[]){ "sh", "-c", cmd, NULL });
		up = up || (r.code == 0 && strstr(r.out, "\"status\":\"success\"")
			    && !strstr(r.out, "\"result\":[]"));
		free(r.out);
		free(r.err);
		/* PromQL unescapes \\ to the \ of the label value's \xff */
		snprintf(cmd, sizeof(cmd), "curl -sf 'http://127.0.0.1:%d/api/v1/"
			 "query' --data-urlencode 'query=abicap_context_switches_"
			 "total{cgroup=\"%s/bad\\\\xff/\"}'", pport, base);
		r = run_cmd((char *[]){ "sh", "-c", cmd, NULL });
		bad_found = bad_found || (r.code == 0 &&
					  strstr(r.out, "bad\\\\xff/"));
		free(r.out);
		free(r.err);
	}
	kill(prom.pid, SIGTERM);
	wait_exit(&prom, 30);
	cr_assert(found, "Prometheus never returned the %s series", latency);
	cr_assert(up, "Prometheus never had up == 1 for abicap");
	cr_assert(bad_found, "Prometheus never returned the series of %s/bad\\xff",
		  base);
	kill(srv.pid, SIGINT);
	cr_assert_eq(wait_exit(&srv, 20), 0);
}

/* Lines of text that start with prefix. */
static int count_lines(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	int c = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		c += !strncmp(p, prefix, n);
	return c;
}

/* Run a short CPU burst in cgroup cg and wait for its end. */
static void burst_in(const char *cg)
{
	pid_t pid = start_in(cg, (char *[]){ "sh", "-c", "i=0; while [ $i -lt "
					     "100000 ]; do i=$((i+1)); done",
					     NULL });
	int st;

	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && !WEXITSTATUS(st), "the burst failed: %d", st);
	nworkers--; /* reaped: not for stop_workloads() */
}

/* The scrape, which must be valid exposition text with no series twice. */
static char *checked_scrape(int port)
{
	char why[256], *text = scrape_metrics(port);

	cr_assert_eq(prom_check(text, strlen(text), NULL, NULL, why, sizeof(why)),
		     0, "%s", why);
	return text;
}

/*
 * Scrapes until the sample starting with prefix is above min: a task's last
 * switch, and the on-CPU time it carries, is counted when it is scheduled
 * out for good, a moment after its parent's waitpid() may have returned.
 */
static char *scrape_until(int port, const char *prefix, double min)
{
	char *text = NULL;

	for (int t = 0; t < 100; t++) {
		free(text);
		text = checked_scrape(port);
		if (metric_sample(text, prefix) > min)
			break;
		usleep(100000);
	}
	return text;
}

/* Chown a cgroup to nobody the way delegation does (the directory, its procs). */
static void delegate_to_nobody(const char *cg)
{
	static const char *const files[] = { "", "/cgroup.procs",
					     "/cgroup.subtree_control",
					     "/cgroup.threads" };
	char dir[4400];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		cg_dir(cg, dir, sizeof(dir));
		strcat(dir, files[i]);
		cr_assert(!chown(dir, NOBODY, NOBODY), "chown %s: %s", dir,
			  strerror(errno));
	}
}

/*
 * Issue 32, item 5: a tenant (nobody, owning a delegated subtree) names
 * cgroups after a real container. The real one keeps its two tasks and
 * its label alone; the look-alikes are plain cgroups in report and serve.
 */
Test(containers, a_tenants_look_alike_is_no_container)
{
	char *cap = scratch_path("spoof.abicap"), fake[256], fake2[256];
	char sys[160], dk[160], prefix[512], *text, *line;
	const char *tenant = extra_cgroup("tenant");
	const char *const made[] = { sys, fake, dk, fake2 };
	int port = free_ports(1), found = 0;
	pid_t spinner;
	struct child srv;
	json_t *rep, *g, *t;
	struct run r;
	size_t i;

	delegate_to_nobody(tenant);
	snprintf(sys, sizeof(sys), "%s/system.slice", tenant);
	snprintf(fake, sizeof(fake), "%s/docker-%s.scope", sys, DOCKER_ID);
	snprintf(dk, sizeof(dk), "%s/docker", tenant);
	snprintf(fake2, sizeof(fake2), "%s/%s", dk, DOCKER_ID);
	cr_assert_eq(mkdirs_as_nobody(made, 4), 0, "nobody could not make its cgroups");
	for (i = 0; i < 4; i++) {
		cr_assert_lt(nextra, 24);
		snprintf(extra[nextra++], sizeof(extra[0]), "%s", made[i]);
	}
	spinner = spin_as_nobody(fake);
	spin_as_nobody(fake2);
	wait_pingpong(start_in(docker, (char *[]){ "build/pingpong", "600", "-1",
						   NULL }));

	r = run_cmd((char *[]){ (char *)abicap_bin(), "record", "-o", cap, "-d", "2",
			    NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "report", cap, "--by",
			    "container", "-f", "json", NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	rep = json_loads(r.out, 0, NULL);
	cr_assert(rep);
	g = group(rep, "docker:3f4e5a6b7c8d");
	cr_assert(g, "no docker:3f4e5a6b7c8d group in %s", r.out);
	cr_assert_eq(json_integer_value(json_object_get(g, "tasks")), 2,
		     "the real container has abc_ping and abc_pong only: %s", r.out);
	json_decref(rep);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "report", cap, "-f", "json",
				NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	rep = json_loads(r.out, 0, NULL);
	json_array_foreach(json_object_get(rep, "tasks"), i, t) {
		if (json_integer_value(json_object_get(t, "tid")) != spinner)
			continue;
		cr_assert_str_eq(json_string_value(json_object_get(t, "cgroup")), fake);
		cr_assert(!json_string_value(json_object_get(t, "container")),
			  "the look-alike is a container: %s",
			  json_string_value(json_object_get(t, "container")));
		found++;
	}
	cr_assert_eq(found, 1, "the spinner (%d) is not in the report", spinner);
	json_decref(rep);

	/* serve: the look-alikes' series carry no container label */
	start_serve(&srv, port, NULL);
	snprintf(prefix, sizeof(prefix), "abicap_cpu_seconds_total{cgroup=\"%s\"", fake);
	text = scrape_until(port, prefix, 0.1);
	line = strstr(text, prefix);
	cr_assert(line, "no series of %s", fake);
	*strchr(line, '\n') = 0;
	cr_assert(strstr(line, ",container=\"\","), "%s", line);
	*strchr(line, 0) = '\n';
	snprintf(prefix, sizeof(prefix), "abicap_cpu_seconds_total{cgroup=\"%s\"", docker);
	line = strstr(text, prefix);
	cr_assert(line, "no series of %s", docker);
	cr_assert(!strncmp(line + strlen(prefix), ",container=\"docker:3f4e5a6b7c8d\",",
			   strlen(",container=\"docker:3f4e5a6b7c8d\",")), "%.300s", line);
	free(text);
	stop_serve(&srv);
}

/*
 * Issue 32, item 4: a tenant's cgroup 17 levels of 250-byte names deep
 * (4,298 bytes, past PATH_MAX) is named, by record and by serve, while
 * its task runs; serve never calls it removed.
 */
Test(containers, a_path_past_path_max_is_named)
{
	static char deep[17][4400];
	const char *tenant = extra_cgroup("deep");
	const char *made[17];
	char *cap = scratch_path("deep.abicap"), prefix[4600], *text, *line;
	int port = free_ports(1), found = 0;
	struct child srv;
	pid_t spinner;
	json_t *rep, *t;
	struct run r;
	size_t i;

	delegate_to_nobody(tenant);
	for (i = 0; i < 17; i++) {
		char name[251];

		memset(name, 'a' + i, 249);
		snprintf(name + 249, 2, "%zu", i % 10);
		snprintf(deep[i], sizeof(deep[i]), "%s/%s", i ? deep[i - 1] : tenant,
			 name);
		made[i] = deep[i];
	}
	cr_assert_gt(strlen(deep[16]), PATH_MAX);
	cr_assert_eq(mkdirs_as_nobody(made, 17), 0, "nobody could not nest 17 cgroups");
	/* the suite removes them, deepest first */
	for (i = 0; i < 17; i++)
		extra_deep[nextra_deep++] = deep[i];
	spinner = spin_as_nobody(deep[16]);

	r = run_cmd((char *[]){ (char *)abicap_bin(), "record", "-o", cap, "-d", "1",
			    NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "report", cap, "-f", "json",
				NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	rep = json_loads(r.out, 0, NULL);
	cr_assert(rep);
	json_array_foreach(json_object_get(rep, "tasks"), i, t) {
		if (json_integer_value(json_object_get(t, "tid")) != spinner)
			continue;
		cr_assert_str_eq(json_string_value(json_object_get(t, "cgroup")),
				 deep[16]);
		found++;
	}
	cr_assert_eq(found, 1, "the spinner (%d) is not in the report", spinner);
	json_decref(rep);

	/* trace --cgroup takes the path, and names it */
	r = run_cmd((char *[]){ (char *)abicap_bin(), "trace", "-f", "json", "-d",
				"0.5", "--cgroup", deep[16], NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_assert(strstr(r.out, deep[16]), "trace does not name the cgroup");

	/*
	 * serve: named while it runs, never "(removed)"; the label keeps the
	 * path's first and last 200 bytes around a hash (PROM_LABEL_MAX)
	 */
	start_serve(&srv, port, NULL);
	snprintf(prefix, sizeof(prefix), "abicap_cpu_seconds_total{cgroup=\"%.200s"
		 "\xe2\x80\xa6#", deep[16]);
	text = scrape_until(port, prefix, 0.1);
	line = strstr(text, prefix);
	cr_assert(line, "no series of the deep cgroup");
	*strchr(line, '\n') = 0;
	cr_assert(strstr(line, deep[16] + strlen(deep[16]) - 200),
		  "the label does not end with the path's end");
	cr_assert_lt(strlen(line), 700, "the label is not bounded");
	*strchr(line, 0) = '\n';
	cr_assert_gt(metric_sample(text, prefix), 0.1);
	free(text);
	stop_serve(&srv);
}

Test(containers, serve_one_series_per_cgroup_path_when_it_is_made_again)
{
	int port = free_ports(1);
	char listen[64], seen[1024], prefix[256], dir[4400], name[16], *t1, *t2, *t3;
	const char *svc;
	double v1, v2, v3;
	struct child srv;

	svc = extra_cgroup("svc");
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	spawn(&srv, (char *[]){ (char *)abicap_bin(), "serve", "--listen", listen,
			       "--cgroup", base, "--max-cgroups", "16", NULL });
	daemons[ndaemons++] = srv.pid;
	wait_for_stderr(&srv, "serving http://", seen, sizeof(seen));
	/* 13 cgroups with a task, the map room for 16: pruning from the start */
	for (int i = 0; i < 13; i++) {
		snprintf(name, sizeof(name), "fill%d", i);
		start_in(extra_cgroup(name), (char *[]){ "sleep", "100", NULL });
	}
	for (int t = 0; t < 100; t++) {
		t1 = scrape_metrics(port);
		v1 = metric_sample(t1, "abicap_cgroups ");
		free(t1);
		if (v1 >= 13)
			break;
		usleep(50000);
	}
	cr_assert_geq(v1, 13, "the 13 sleepers' cgroups are in the map");
	snprintf(prefix, sizeof(prefix), "abicap_cpu_seconds_total{cgroup=\"%s\"",
		 svc);

	burst_in(svc);
	t1 = scrape_until(port, prefix, 0);
	cr_assert_eq(count_lines(t1, prefix), 1, "expected one series:\n%s",
		     metric_lines(t1, prefix));
	v1 = metric_sample(t1, prefix);
	cr_assert_gt(v1, 0);

	/* a systemd restart: the cgroup is removed and made again */
	cg_dir(svc, dir, sizeof(dir));
	for (int t = 0; t < 100 && rmdir(dir); t++)
		usleep(20000);
	cr_assert_eq(mkdir(dir, 0755), 0, "%s", strerror(errno));
	burst_in(svc);
	t2 = scrape_until(port, prefix, v1);
	cr_assert_eq(count_lines(t2, prefix), 1, "expected one series per "
		     "path:\n%s", metric_lines(t2, prefix));
	v2 = metric_sample(t2, prefix);
	cr_assert_gt(v2, v1, "both incarnations counted");

	/*
	 * a render after the one above prunes the first incarnation (a page
	 * is served again while young): its time stays
	 */
	for (int t = 0; t < 100; t++) {
		t3 = checked_scrape(port);
		cr_assert_eq(count_lines(t3, prefix), 1, "expected one series:\n%s",
			     metric_lines(t3, prefix));
		v3 = metric_sample(t3, prefix);
		cr_assert_geq(v3, v2, "a counter never goes back: %f then %f", v2, v3);
		if (metric_sample(t3, "abicap_cgroups_pruned_total ") >= 1)
			break;
		free(t3);
		usleep(100000);
	}
	cr_assert_geq(metric_sample(t3, "abicap_cgroups_pruned_total "), 1,
		      "expected a cgroup pruned:\n%s",
		      metric_lines(t3, "abicap_cgroups_pruned_total "));
	free(t1);
	free(t2);
	free(t3);
	kill(srv.pid, SIGTERM);
	cr_assert_eq(wait_exit(&srv, 20), 0);
}


/*
 * A cgroup that exists is never pruned, even when serve cannot name it yet:
 * after dropping its privileges serve names new cgroups by walking the
 * hierarchy, at most every 100 ms, and a scrape in between must not take
 * "not named yet" for "removed" (CI lost sleepers' cgroups this way).
 */
Test(containers, serve_never_prunes_a_cgroup_it_cannot_name_yet)
{
	int port = free_ports(1);
	char listen[64], seen[1024], name[16], *t;
	struct child srv;
	double live = 0, pruned = 0;

	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	spawn(&srv, (char *[]){ (char *)abicap_bin(), "serve", "--listen", listen,
			       "--cgroup", base, "--max-cgroups", "16", NULL });
	daemons[ndaemons++] = srv.pid;
	wait_for_stderr(&srv, "serving http://", seen, sizeof(seen));
	/*
	 * 11 sleepers, then one at a time, scraped back to back while it
	 * appears: from 12 cgroups on (3/4 of the room) a scrape prunes
	 */
	for (int i = 0; i < 11; i++) {
		snprintf(name, sizeof(name), "fill%d", i);
		start_in(extra_cgroup(name), (char *[]){ "sleep", "100", NULL });
	}
	for (int k = 0; k < 200 && live < 11; k++) {
		usleep(50000);
		t = scrape_metrics(port);
		live = metric_sample(t, "abicap_cgroups ");
		free(t);
	}
	cr_assert_eq(live, 11, "the first 11 sleepers' cgroups are in the map");
	for (int i = 0; i < 4; i++) {
		uint64_t end;

		snprintf(name, sizeof(name), "nap%d", i);
		start_in(extra_cgroup(name), (char *[]){ "sleep", "100", NULL });
		end = mono_ns() + 400000000ull;
		while (mono_ns() < end) {
			t = scrape_metrics(port);
			pruned = metric_sample(t, "abicap_cgroups_pruned_total ");
			live = metric_sample(t, "abicap_cgroups ");
			free(t);
			cr_assert_eq(pruned, 0, "a live cgroup was pruned "
				     "(%d sleepers started, %g in the map)",
				     11 + i + 1, live);
		}
	}
	cr_assert_eq(live, 15, "the 15 sleepers' cgroups are in the map");
	kill(srv.pid, SIGTERM);
	cr_assert_eq(wait_exit(&srv, 20), 0);
}
Test(containers, serve_refuses_bad_input_and_keeps_serving)
{
	int port = free_ports(1), busy, code;
	struct sockaddr_in a = { .sin_family = AF_INET };
	char addr[64], big[20000], seen[1024], dir[4400], *text;
	struct child srv;
	struct run r;

	/* a port in use: exit 4 before anything loads */
	busy = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_port = htons(port + 1);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(busy, (void *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(busy, 1), 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port + 1);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "serve", "--listen", addr,
			    NULL });
	close(busy);
	cr_assert_eq(r.code, 4, "%s", r.err);
	cr_assert(strstr(r.err, "Address already in use") &&
		  strstr(r.err, "--listen"), "%s", r.err);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "serve", "--listen",
			    "example.com:80", NULL });
	cr_assert_eq(r.code, 2, "%s", r.err);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "serve", "--cgroup",
			    "/no/such/cgroup", NULL });
	cr_assert_eq(r.code, 2, "%s", r.err);
	cr_assert(strstr(r.err, "/no/such/cgroup"), "%s", r.err);

	start_serve(&srv, port, latency);
	cr_assert_eq(http(port, "POST /metrics HTTP/1.1\r\nHost: x\r\n"
			  "Content-Length: 5\r\n\r\nhello", 55, NULL), 405);
	cr_assert_eq(http(port, "GET /nothing HTTP/1.0\r\n\r\n", 25, NULL), 404);
	code = http(port, "GARBAGE\r\n\r\n", 11, NULL);
	cr_assert(code == 400 || code == 0, "a malformed request got %d", code);
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ", 40);
	memcpy(big + sizeof(big) - 4, "\r\n\r\n", 4);
	code = http(port, big, sizeof(big), NULL);
	cr_assert(code == 431 || code == 413 || code == 414 || code == 400,
		  "an oversized request got %d", code);
	/* the filtered cgroup goes away: a warning, and serving goes on */
	cg_dir(latency, dir, sizeof(dir));
	cr_assert_eq(rmdir(dir), 0, "%s", strerror(errno));
	wait_for_stderr(&srv, "was removed", seen, sizeof(seen));
	text = scrape_metrics(port);
	cr_assert(strstr(text, "abicap_events_total"));
	free(text);
	kill(srv.pid, SIGTERM);
	cr_assert_eq(wait_exit(&srv, 20), 0);
}

/*
 * Names from a real container runtime (issue 25: containers were ids): an
 * OCI bundle written here, with the annotations containerd's CRI plugin
 * writes, run by runc in a Kubernetes-shaped cgroup under the test's
 * subtree. runc keeps the annotations in its state (/run/runc/ID); serve
 * labels the container's series with its namespace, pod and container
 * name, trace and report name it by them, and record keeps them for
 * report (the trailer), which still names it once the container is gone.
 */
static char runc_id[65];

static void runc_gone(void)
{
	if (runc_id[0])
		free(run_cmd((char *[]){ "runc", "delete", "-f", runc_id, NULL }).err);
	runc_id[0] = 0;
	remove_cgroups();
}

static void write_bundle(const char *dir, const char *cgpath)
{
	char p[4200];
	json_t *c, *ann, *proc;
	struct run r;

	snprintf(p, sizeof(p), "%s/rootfs/bin", dir);
	r = run_cmd((char *[]){ "mkdir", "-p", p, NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	r = run_cmd((char *[]){ "cp", "/usr/bin/busybox", p, NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	r = run_cmd((char *[]){ "runc", "spec", "--bundle", (char *)dir, NULL });
	cr_assert_eq(r.code, 0, "runc spec: %s", r.err);
	snprintf(p, sizeof(p), "%s/config.json", dir);
	c = json_load_file(p, 0, NULL);
	cr_assert(c, "%s", p);
	proc = json_object_get(c, "process");
	json_object_set_new(proc, "terminal", json_false());
	json_object_set_new(proc, "args", json_pack("[s, s, s, s]", "/bin/busybox",
		"sh", "-c", "while :; do :; done"));
	ann = json_pack("{s:s, s:s, s:s, s:s}",
		"io.kubernetes.cri.container-type", "container",
		"io.kubernetes.cri.sandbox-name", "web-1",
		"io.kubernetes.cri.sandbox-namespace", "shop",
		"io.kubernetes.cri.container-name", "nginx");
	json_object_set_new(c, "annotations", ann);
	json_object_set_new(json_object_get(c, "linux"), "cgroupsPath",
			    json_string(cgpath));
	cr_assert_eq(json_dump_file(c, p, JSON_INDENT(1)), 0);
	json_decref(c);
}

Test(containers, names_from_a_container_runtime, .fini = runc_gone)
{
	char bundle[512], cg[512], podcg[256], listen_port[16];
	char *cap = scratch_path("rt.abicap");
	const char *pod = "12345678-1234-1234-1234-123456789abc";
	struct child ch;
	char *text, prefix[768], cmd[2048];
	json_t *rep, *t;
	struct run r;
	size_t i;
	int port = free_ports(1), found = 0;

	r = run_cmd((char *[]){ "runc", "--version", NULL });
	if (r.code || access("/usr/bin/busybox", X_OK)) {
		if (getenv("CI"))
			cr_assert_fail("runc or busybox missing in CI (scripts/setup.sh)");
		test_skip("runc or a static busybox missing: scripts/setup.sh installs them");
	}
	snprintf(runc_id, sizeof(runc_id), "%08x%056x", (unsigned)getpid(), 0xabcdefu);
	snprintf(podcg, sizeof(podcg), "/kubepods/besteffort/pod%s", pod);
	host_place(podcg);
	snprintf(cg, sizeof(cg), "%s/%s", podcg, runc_id);
	snprintf(bundle, sizeof(bundle), "%s", scratch_path("bundle"));
	write_bundle(bundle, cg);
	/* detached, its stdio not the test's pipes (run_cmd waits for EOF) */
	snprintf(cmd, sizeof(cmd), "runc run -d --bundle '%s' %s </dev/null "
		 ">/dev/null 2>'%s'", bundle, runc_id, scratch_path("runc.err"));
	r = run_cmd((char *[]){ "sh", "-c", cmd, NULL });
	cr_assert_eq(r.code, 0, "runc run: %s", read_file(scratch_path("runc.err"),
							   &(size_t){ 0 }));

	/* serve: the container's series carry its names */
	snprintf(listen_port, sizeof(listen_port), "%d", port);
	start_serve(&ch, port, podcg);
	snprintf(prefix, sizeof(prefix), "abicap_cpu_seconds_total{cgroup=\"%s\"",
		 cg);
	text = scrape_until(port, prefix, 0.1);
	{
		char *line = strstr(text, prefix), *end;

		cr_assert(line, "no series of %s: %s", cg, text);
		end = strchr(line, '\n');
		*end = 0;
		cr_assert(strstr(line, "namespace=\"shop\",pod_name=\"web-1\","
				 "container_name=\"nginx\""), "%s", line);
		cr_assert(strstr(line, "pod=\"12345678-1234-1234-1234-"
				 "123456789abc\""), "the id stays: %s", line);
	}
	free(text);
	stop_serve(&ch);

	/* trace's text names it by name */
	r = run_cmd((char *[]){ (char *)abicap_bin(), "trace", "-d", "1", "--cgroup",
				cg, NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_assert(strstr(r.out, "k8s:shop/web-1/nginx"), "%.2000s", r.out);

	/* record keeps the names; report shows them after the container is gone */
	r = run_cmd((char *[]){ (char *)abicap_bin(), "record", "-o", cap, "-d",
				"1", "--cgroup", podcg, NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	free(run_cmd((char *[]){ "runc", "delete", "-f", runc_id, NULL }).err);
	runc_id[0] = 0;
	r = run_cmd((char *[]){ (char *)abicap_bin(), "report", cap, "--by",
				"container", NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_assert(strstr(r.out, "k8s:shop/web-1/nginx"), "%s", r.out);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "report", cap, "-f", "json",
				NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	rep = json_loads(r.out, 0, NULL);
	cr_assert(rep);
	json_array_foreach(json_object_get(rep, "tasks"), i, t) {
		json_t *n = json_object_get(t, "container_names");

		if (!n)
			continue;
		cr_assert_str_eq(json_string_value(json_object_get(n, "pod_name")),
				 "web-1");
		cr_assert_str_eq(json_string_value(json_object_get(n, "namespace")),
				 "shop");
		cr_assert_str_eq(json_string_value(json_object_get(n,
				 "container_name")), "nginx");
		found++;
	}
	cr_assert_gt(found, 0, "no task with container_names: %.3000s", r.out);
	json_decref(rep);
}
