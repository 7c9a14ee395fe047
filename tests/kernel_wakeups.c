// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap wakeups (PowerTOP's question) against the kernel's own count: the
 * idle entries it finds per CPU and state in a window equal the cpuidle
 * usage counters (/sys/devices/system/cpu/cpuN/cpuidle/stateM/usage) read
 * at the window's two ends, within the one entry each end may be in flight;
 * every exit is attributed once.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"

#define path(n) scratch_path(n)
#define NSTATES 8

TestSuite(wakeups, .init = scratch_init, .fini = scratch_fini, .timeout = 120);

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

Test(wakeups, idle_entries_match_sysfs_usage)
{
	const char *cap = path("w.abicap");
	char *bin = (char *)abicap_bin(), seen[4096], since[64], until[64];
	int ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	long long (*u1)[NSTATES] = calloc((size_t)ncpus, sizeof(*u1));
	long long (*u2)[NSTATES] = calloc((size_t)ncpus, sizeof(*u2));
	uint64_t t1, t2, first;
	json_t *w, *cpus, *c, *cause, *line;
	struct child rec;
	struct run r;
	size_t i;

	require_kernel();
	if (!read_usage(ncpus, u1)) {
		if (getenv("CI"))
			cr_assert_fail("this kernel has no cpuidle driver");
		test_skip("this kernel has no cpuidle driver "
			     "(/sys/devices/system/cpu/cpu0/cpuidle)");
	}
	spawn(&rec, (char *[]){ bin, "record", "-o", (char *)cap, "-d", "3",
				NULL });
	wait_for_stderr(&rec, "abicap: recording", seen, sizeof(seen));
	usleep(300000);
	t1 = mono();
	read_usage(ncpus, u1);
	usleep(1500000);
	read_usage(ncpus, u2);
	t2 = mono();
	free(read_all(rec.out_fd));
	free(read_all(rec.err_fd));
	cr_assert_eq(wait_exit(&rec, 30), 0, "record failed");

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
	cr_assert(first && first < t1);
	snprintf(since, sizeof(since), "%lluns", (unsigned long long)(t1 - first));
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
			long long got, want;

			if (u1[i][s] < 0)
				continue;
			snprintf(key, sizeof(key), "%d", s);
			got = json_integer_value(json_object_get(ent, key));
			want = u2[i][s] - u1[i][s];
			all += got;
			cr_assert(got >= want - 1 && got <= want + 1,
				  "CPU %zu state %d: %lld idle entries in the "
				  "capture's window, %lld by the kernel's "
				  "cpuidle usage", i, s, got, want);
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
