// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap wakeups (PowerTOP's question) against the kernel's own count: the
 * idle entries it finds per CPU and state in a window equal the cpuidle
 * usage counters (/sys/devices/system/cpu/cpuN/cpuidle/stateM/usage) read
 * at the window's two ends, within the one entry each end may be in flight;
 * every exit is attributed once. A kernel without a cpuidle driver (the
 * idle loop's default_idle_call still fires cpu_idle) has no such counters:
 * there the count is that of the kernel's own tracefs, in a private
 * instance over the same window.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"
#include "oracle.h"

#define path(n) scratch_path(n)
#define NSTATES 8

/* the live tracefs instance, removed by the suite's fini if a test fails */
static struct orc_session *live;

static void wakeups_fini(void)
{
	orc_abort(live);
	live = NULL;
	scratch_fini();
}

TestSuite(wakeups, .init = scratch_init, .fini = wakeups_fini, .timeout = 120);

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* usage[cpu][state] from sysfs; false if this kernel has no cpuidle. */
static bool read_usage(int ncpus, long long (*u)[NSTATES])
{
	for (int c = 0; c < ncpus; c++)
		for (int s = 0; s < NSTATES; s++) {
			char p[128];
			FILE *f;

			snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/"
				 "cpuidle/state%d/usage", c, s);
			u[c][s] = -1;
			f = fopen(p, "r");
			if (!f) {
				if (!s)
					return false;
				continue;
			}
			cr_assert_eq(fscanf(f, "%lld", &u[c][s]), 1);
			fclose(f);
		}
	return true;
}

/*
 * The oracle's idle entries per CPU and state over [t1, t2]: lo counts
 * those surely inside (further than orc_tol_ns from either end: tracefs
 * prints truncated microseconds and stamps in its own probe), hi those
 * that may be.
 */
static void tracefs_entries(const struct orc_trace *t, int ncpus, uint64_t t1,
			    uint64_t t2, long long (*lo)[NSTATES],
			    long long (*hi)[NSTATES])
{
	for (int c = 0; c < ncpus; c++)
		for (int s = 0; s < NSTATES; s++)
			lo[c][s] = hi[c][s] = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct orc_ev *e = &t->v[i];

		if (e->type != ABICAP_EV_CPU_IDLE || e->state == UINT32_MAX ||
		    e->cpu < 0 || e->cpu >= ncpus)
			continue;
		cr_assert_lt(e->state, NSTATES, "idle state %u: %s", e->state,
			     e->line);
		if (e->ts + orc_tol_ns >= t1 && e->ts <= t2 + orc_tol_ns)
			hi[e->cpu][e->state]++;
		if (e->ts >= t1 + orc_tol_ns && e->ts + orc_tol_ns <= t2)
			lo[e->cpu][e->state]++;
	}
}

/*
 * The window's length: with cpuidle counters, until every CPU entered
 * idle 20 times (a CPU a hog keeps busy may never: 5 s at most, its count
 * 0 or what it was); without, tracefs is read at the end only, and the
 * window is a second of whatever the machine does. Its length decides
 * nothing: both sides count the same window.
 */
static void window(int ncpus, bool sysfs, long long (*u1)[NSTATES],
		   long long (*u2)[NSTATES])
{
	uint64_t end = mono() + (sysfs ? 5000000000ull : 1000000000ull);
	bool enough = false;

	while (!enough && mono() < end) {
		usleep(10000);
		if (!sysfs)
			continue;
		read_usage(ncpus, u2);
		enough = true;
		for (int c = 0; c < ncpus; c++) {
			long long d = 0;

			for (int s = 0; s < NSTATES; s++)
				d += u2[c][s] >= 0 ? u2[c][s] - u1[c][s] : 0;
			enough = enough && d >= 20;
		}
	}
	if (sysfs)
		read_usage(ncpus, u2);
}

Test(wakeups, idle_entries_match_sysfs_usage)
{
	const char *cap = path("w.abicap");
	char *bin = (char *)abicap_bin(), seen[4096], since[64], until[64];
	int ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	long long (*u1)[NSTATES] = calloc((size_t)ncpus, sizeof(*u1));
	long long (*u2)[NSTATES] = calloc((size_t)ncpus, sizeof(*u2));
	uint64_t t1, t2, first;
	struct orc_session *sess = NULL;
	struct orc_trace t = { 0 };
	char err[512];
	bool sysfs;
	json_t *w, *cpus, *c, *cause, *line;
	struct child rec;
	struct run r;
	size_t i;

	require_kernel();
	sysfs = read_usage(ncpus, u1);
	if (!sysfs) {
		require_path("/sys/kernel/tracing/instances", "tracefs mounted");
		snprintf(seen, sizeof(seen), "abicap_wakeups_%d", getpid());
		/* idle entries are all it counts: cpu_idle only */
		sess = orc_start_events(seen, 8192, 1u << ABICAP_EV_CPU_IDLE, -1,
					err, sizeof(err));
		cr_assert(sess, "no cpuidle driver, and the tracefs oracle: %s", err);
		live = sess;
	}
	/* ended by SIGINT once the window is read: no deadline to meet */
	spawn(&rec, (char *[]){ bin, "record", "-o", (char *)cap, NULL });
	wait_for_stderr(&rec, "abicap: recording", seen, sizeof(seen));
	t1 = mono();
	if (sysfs)
		read_usage(ncpus, u1);
	window(ncpus, sysfs, u1, u2);
	t2 = mono();
	kill(rec.pid, SIGINT);
	free(read_all(rec.out_fd));
	free(read_all(rec.err_fd));
	cr_assert_eq(wait_exit(&rec, 30), 0, "record failed");
	if (!sysfs) {
		live = NULL; /* orc_stop removes it */
		cr_assert_eq(orc_stop(sess, &t, err, sizeof(err)), 0,
			     "tracefs oracle: %s", err);
		cr_assert_eq(t.lost, 0, "tracefs lost %llu events",
			     (unsigned long long)t.lost);
		/* u1: the entries surely inside; u2: those that may be */
		tracefs_entries(&t, ncpus, t1, t2, u1, u2);
		orc_trace_free(&t);
	}
	fprintf(stderr, "wakeups: idle entries counted by %s\n", sysfs ?
		"the cpuidle usage counters" : "tracefs (no cpuidle driver)");

	/* the capture's first record: the origin of --since/--until */
	r = run_cmd((char *[]){ bin, "script", (char *)cap, "-f", "json",
				"--until", "0ns", NULL });
	cr_assert_eq(r.code, 0, "script: %s", r.err);
	line = json_loads(r.out, JSON_DISABLE_EOF_CHECK, NULL);
	cr_assert(line, "script printed no record: %s", r.out);
	first = (uint64_t)json_integer_value(json_object_get(line, "ts_ns"));
	json_decref(line);
	free(r.out);
	free(r.err);
	cr_assert(first && first < t2, "no record inside the window");
	/* none before t1: nothing happened in [t1, first), from first on */
	snprintf(since, sizeof(since), "%lluns",
		 (unsigned long long)(first < t1 ? t1 - first : 0));
	snprintf(until, sizeof(until), "%lluns", (unsigned long long)(t2 - first));
	r = run_cmd((char *[]){ bin, "wakeups", (char *)cap, "-f", "json",
				"--since", since, "--until", until, NULL });
	cr_assert_eq(r.code, 0, "wakeups: %s", r.err);
	w = json_loads(r.out, 0, NULL);
	cr_assert(w, "%s", r.out);
	cpus = json_object_get(w, "cpus");
	cr_assert_eq(json_array_size(cpus), (size_t)ncpus);
	json_array_foreach(cpus, i, c) {
		json_t *ent = json_object_get(c, "idle_entries_by_state");
		long long exits = json_integer_value(json_object_get(c, "idle_exits"));
		long long all = 0, attributed = 0;
		size_t k;

		for (int s = 0; s < NSTATES; s++) {
			char key[8];
			long long got, lo, hi;

			snprintf(key, sizeof(key), "%d", s);
			got = json_integer_value(json_object_get(ent, key));
			all += got;
			if (sysfs && u1[i][s] < 0) {
				cr_assert_eq(got, 0, "CPU %zu: %lld entries of "
					     "state %d, which sysfs does not "
					     "have", i, got, s);
				continue;
			}
			lo = sysfs ? u2[i][s] - u1[i][s] - 1 : u1[i][s];
			hi = sysfs ? u2[i][s] - u1[i][s] + 1 : u2[i][s];
			cr_assert(got >= lo && got <= hi,
				  "CPU %zu state %d: %lld idle entries in the "
				  "capture's window, the kernel's %s says %lld "
				  "to %lld", i, s, got, sysfs ? "cpuidle usage" :
				  "tracefs", lo, hi);
			if (got)
				fprintf(stderr, "wakeups: CPU %zu state %d: "
					"%lld entries, the kernel's %lld to "
					"%lld\n", i, s, got, lo, hi);
		}
		cr_assert(exits >= all - 1 && exits <= all + 1,
			  "CPU %zu: %lld exits for %lld entries", i, exits, all);
		json_array_foreach(json_object_get(w, "causes"), k, cause)
			if ((size_t)json_integer_value(json_object_get(cause, "cpu")) == i)
				attributed += json_integer_value(json_object_get(cause,
							"idle_exits"));
		cr_assert_eq(attributed, exits, "CPU %zu: %lld exits, %lld "
			     "attributed", i, exits, attributed);
	}
	json_decref(w);
	free(r.out);
	free(r.err);
	free(u1);
	free(u2);
}
