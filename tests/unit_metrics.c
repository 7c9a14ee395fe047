// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * serve's per-cgroup metrics from cgroup names as the kernel can give
 * them: not UTF-8, spelling escapes, and one path in several incarnations.
 * The text must be what Prometheus accepts (promtool and promcheck.c).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "event/cgnames.h"
#include "live/metrics.h"
#include "promcheck.h"

struct seen {
	char values[16][256];
	int n;
};

static void on_label(void *ctx, const char *metric, const char *label,
		     const char *value, size_t len)
{
	struct seen *s = ctx;

	if (!strcmp(metric, "abicap_cpu_seconds_total") &&
	    !strcmp(label, "cgroup") && s->n < 16 && len < 256)
		memcpy(s->values[s->n++], value, len + 1);
}

/* The per-cgroup text for samples named by paths[i] (id i + 100). */
static char *render(struct metrics_ctx *m, const char *const *paths,
		    const double *cpu_s, size_t n)
{
	struct cg_sample v[16] = { 0 };
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(f && n <= 16);
	for (size_t i = 0; i < n; i++) {
		v[i].id = 100 + i;
		v[i].s.oncpu_ns = (uint64_t)(cpu_s[i] * 1e9);
		v[i].s.switches_voluntary = 1;
		v[i].s.oncpu_unseen = i;
		if (paths[i])
			cr_assert_eq(cgnames_set(m->names, v[i].id, paths[i]), 0);
	}
	cr_assert_eq(metrics_write_cgroups(f, m, v, n), 0);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static void promtool_accepts(const char *text)
{
	char path[] = "/tmp/abicap-unit-metrics-XXXXXX", cmd[128];
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	cr_assert(f);
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s 2>&1", path);
	/* setup.sh installs promtool: its absence is a failure, not a skip */
	cr_assert_eq(system(cmd), 0, "promtool refused:\n%s", text);
	unlink(path);
}

Test(metrics, label_values_that_are_not_utf8_are_escaped_and_kept_distinct)
{
	const char *paths[] = {
		"/t/bad\xff",		/* a byte that is not UTF-8 */
		"/t/bad\\xff",		/* the same spelled as text */
		"/t/bad\xfe",
		"/t/a\\b\xc3",		/* a backslash and a cut sequence */
		"/system.slice/systemd\\x2dfsck.slice", /* systemd's escape */
		"/t/caf\xc3\xa9\n\"q\"", /* UTF-8, newline and quotes */
	};
	const double cpu[] = { 1, 2, 3, 4, 5, 6 };
	struct metrics_ctx m = { .names = cgnames_table() };
	struct seen s = { 0 };
	char why[256], *text = render(&m, paths, cpu, 6);

	cr_assert_eq(prom_check(text, strlen(text), on_label, &s, why,
				sizeof(why)), 0, "%s\n%s", why, text);
	cr_assert_eq(s.n, 6, "%s", text);
	/* decoded by Prometheus: the escaped ones end in '/', no path does */
	const char *want[] = {
		"/system.slice/systemd\\x2dfsck.slice",
		"/t/a\\x5cb\\xc3/",
		"/t/bad\\xff",
		"/t/bad\\xfe/",
		"/t/bad\\xff/",
		"/t/caf\xc3\xa9\n\"q\"",
	};
	for (int i = 0; i < 6; i++)
		cr_assert_str_eq(s.values[i], want[i]);
	cr_assert(strstr(text, "abicap_cpu_seconds_total{cgroup=\"/t/bad\\\\xff/\","
			 "container=\"\",pod=\"\",qos=\"\",namespace=\"\",pod_name=\"\","
			 "container_name=\"\"} 1.000000000\n"), "%s",
		  text);
	promtool_accepts(text);
	free(text);
	metrics_fini(&m);
	cgnames_free(m.names);
}

Test(metrics, incarnations_of_one_cgroup_path_are_one_series)
{
	/* a service restarted twice: three ids, one path; an unknown id */
	const char *paths[] = { "/system.slice/x.service", "/other",
				"/system.slice/x.service", NULL,
				"/system.slice/x.service" };
	const double cpu[] = { 1.5, 7, 2, 4, 0.25 };
	struct metrics_ctx m = { .names = cgnames_table() };
	char why[256], *text = render(&m, paths, cpu, 5);

	cr_assert_eq(prom_check(text, strlen(text), NULL, NULL, why,
				sizeof(why)), 0, "%s\n%s", why, text);
	cr_assert(strstr(text, "abicap_cpu_seconds_total{cgroup=\"/system.slice/"
			 "x.service\",container=\"\",pod=\"\",qos=\"\",namespace=\"\","
			 "pod_name=\"\",container_name=\"\"} "
			 "3.750000000\n"), "%s", text);
	cr_assert(strstr(text, "abicap_cpu_seconds_total{cgroup=\"cgroup#103\""),
		  "%s", text);
	cr_assert(strstr(text, "kind=\"voluntary\"} 3\n"), "%s", text);
	/* runs with an unseen switch-in: 0 + 2 + 4 of the three ids */
	cr_assert(strstr(text, "abicap_cpu_runs_unseen_total{cgroup=\"/system."
			 "slice/x.service\",container=\"\",pod=\"\",qos=\"\","
			 "namespace=\"\",pod_name=\"\",container_name=\"\"} "
			 "6\n"), "%s", text);
	promtool_accepts(text);
	free(text);
	metrics_fini(&m);
	cgnames_free(m.names);
}

/* The checker the tests and fuzz_metrics rely on refuses what Prometheus does. */
Test(metrics, the_exposition_checker_refuses_what_prometheus_refuses)
{
	const char *bad[] = {
		"m{a=\"bad\xff\"} 1\n",			/* not UTF-8 */
		"m{a=\"x\"} 1\nm{a=\"x\"} 2\n",		/* a series twice */
		"m{a=\"\\q\"} 1\n",			/* an unknown escape */
		"m{a=\"x} 1\n",				/* not closed */
		"m{1a=\"x\"} 1\n",			/* a bad label name */
		"m{a=\"x\"} one\n",			/* not a number */
		"m 1",					/* no newline */
		"# COMMENT m x\n",
	};
	char why[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_neq(prom_check(bad[i], strlen(bad[i]), NULL, NULL, why,
					 sizeof(why)), 0, "accepted: %s", bad[i]);
	const char *good = "# HELP m h\n# TYPE m counter\nm{a=\"\\\\x\\n\\\"\","
			   "b=\"caf\xc3\xa9\"} 1.5\nm{a=\"y\"} 2\nn 3\n";

	cr_assert_eq(prom_check(good, strlen(good), NULL, NULL, why, sizeof(why)),
		     0, "%s", why);
}

/*
 * A container's names from the runtime (issue 25: Grafana legends were
 * hex): namespace, pod_name and container_name labels beside the ids.
 */
Test(metrics, containers_are_labelled_with_their_runtimes_names)
{
	const char *id = "3f4e5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081";
	char path[256];
	const char *paths[1] = { path };
	const double cpu[] = { 1 };
	struct ct_names cn = { .pod = "web-1", .ns = "shop", .name = "nginx" };
	struct metrics_ctx m = { .names = cgnames_table() };
	char *text;

	snprintf(path, sizeof(path), "/kubepods.slice/kubepods-besteffort.slice/"
		 "kubepods-besteffort-pod12345678_1234_1234_1234_123456789abc.slice/"
		 "cri-containerd-%s.scope", id);
	cr_assert_eq(cgnames_set(m.names, 100, path), 0);
	cr_assert_eq(cgnames_set_ct_names(m.names, id, &cn), 0);
	text = render(&m, paths, cpu, 1);
	cr_assert(strstr(text, "qos=\"besteffort\",namespace=\"shop\",pod_name="
			 "\"web-1\",container_name=\"nginx\"} 1.000000000\n"),
		  "%s", text);
	cr_assert(strstr(text, "container=\"k8s:12345678-1234-1234-1234-"
			 "123456789abc/3f4e5a6b7c8d\""), "the id label stays: %s",
		  text);
	promtool_accepts(text);
	free(text);
	metrics_fini(&m);
	cgnames_free(m.names);
}
