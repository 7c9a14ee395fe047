// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * report --slowest N names the task that held the CPU (runqslower's and
 * perf sched's question), in a capture where the test chooses the holder:
 * a SCHED_FIFO hog pinned to a CPU spins 20 ms and sleeps 1 ms, and a
 * lower-priority SCHED_FIFO waiter on the same CPU sleeps 0.5 ms at a
 * time, so each of its wakeups during a spin waits for the hog, and runs
 * as soon as the hog sleeps (before any normal task): the hog held the CPU.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <jansson.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"

#define path(n) scratch_path(n)

TestSuite(slowest, .init = scratch_init, .fini = scratch_fini, .timeout = 120);

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A child pinned to cpu at SCHED_FIFO prio, named name, running body for secs. */
static pid_t start_rt(int cpu, int prio, const char *name, bool hog, double secs)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid) {
		struct sched_param sp = { .sched_priority = prio };
		struct timespec half = { 0, 500000 }, ms = { 0, 1000000 };
		cpu_set_t set;
		double end;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) ||
		    sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(3);
		prctl(PR_SET_NAME, name);
		end = now_s() + secs;
		while (now_s() < end) {
			if (hog) {
				double spin = now_s() + 0.02;

				while (now_s() < spin)
					;
				nanosleep(&ms, NULL);
			} else {
				nanosleep(&half, NULL);
			}
		}
		_exit(0);
	}
	return pid;
}

static int child_exit(pid_t pid)
{
	int st;

	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

Test(slowest, names_the_hog_the_test_chose)
{
	const char *cap = path("s.abicap");
	char *bin = (char *)abicap_bin(), seen[4096];
	int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	json_t *rep, *list, *e, *t, *ran, *hogrow = NULL;
	long long gaps = -1;
	size_t unknown = 0;
	pid_t hog, waiter;
	struct child rec;
	struct run r;
	size_t i;

	require_kernel();
	spawn(&rec, (char *[]){ bin, "record", "-o", (char *)cap, "-d", "2",
				"-e", "sched_switch,sched_wakeup,sched_wakeup_new",
				NULL });
	wait_for_stderr(&rec, "abicap: recording", seen, sizeof(seen));
	hog = start_rt(cpu, 50, "abicap-hog", true, 0.6);
	waiter = start_rt(cpu, 1, "abicap-waiter", false, 0.6);
	cr_assert_eq(child_exit(hog), 0, "the hog could not be pinned and made "
		     "SCHED_FIFO");
	cr_assert_eq(child_exit(waiter), 0);
	free(read_all(rec.out_fd));
	free(read_all(rec.err_fd));
	cr_assert_eq(wait_exit(&rec, 30), 0, "record failed");

	r = run_cmd((char *[]){ bin, "report", (char *)cap, "-f", "json",
				"--comm", "abicap-waiter", "--slowest", "5",
				NULL });
	cr_assert_eq(r.code, 0, "report: %s", r.err);
	rep = json_loads(r.out, 0, NULL);
	cr_assert(rep);
	free(r.out);
	free(r.err);
	json_array_foreach(json_object_get(rep, "cpus"), i, t)
		if (json_integer_value(json_object_get(t, "cpu")) == cpu)
			gaps = json_integer_value(json_object_get(t,
							"hidden_gaps"));
	list = json_object_get(rep, "slowest_waits");
	cr_assert_eq(json_array_size(list), 5, "fewer than 5 waits listed");
	r = run_cmd((char *[]){ bin, "report", (char *)cap, "-f", "json",
				"--comm", "abicap-hog", NULL });
	cr_assert_eq(r.code, 0);
	{
		json_t *h = json_loads(r.out, 0, NULL);

		json_array_foreach(json_object_get(h, "tasks"), i, t)
			if (json_integer_value(json_object_get(t, "tid")) == hog)
				hogrow = json_incref(t);
		json_decref(h);
	}
	free(r.out);
	free(r.err);
	cr_assert(hogrow, "the report has no row for the hog %d", hog);
	json_array_foreach(list, i, e) {
		json_t *task = json_object_get(e, "task");
		json_t *holder = json_object_get(e, "holder");

		cr_assert_eq(json_integer_value(json_object_get(task, "tid")),
			     waiter, "entry %zu is not the waiter's", i);
		cr_assert_eq(json_integer_value(json_object_get(e, "cpu")), cpu);
		cr_assert_geq(json_integer_value(json_object_get(e, "wait_ns")),
			      1000000, "entry %zu: a wait under 1 ms", i);
		cr_assert_eq(json_integer_value(json_object_get(holder, "tid")),
			     hog, "entry %zu: held by %s:%lld, not the hog %d",
			     i, json_string_value(json_object_get(holder, "comm")),
			     json_integer_value(json_object_get(holder, "tid")),
			     hog);
		cr_assert_str_eq(json_string_value(json_object_get(holder, "comm")),
				 "abicap-hog");
		cr_assert_eq(json_integer_value(json_object_get(e,
				"holder_runtime_ns")),
			     json_integer_value(json_object_get(hogrow,
				"runtime_ns")), "the holder's runtime is not "
			     "the report's");
		ran = json_object_get(e, "holder_ran_ns");
		if (json_is_null(ran)) {
			/* the hog's switch-in there was hidden (CI's guest) */
			cr_assert_gt(gaps, 0, "entry %zu: the hog's time unknown "
				     "without a hidden-task gap on CPU %d", i,
				     cpu);
			unknown++;
		} else {
			cr_assert_gt(json_integer_value(ran), 0, "entry %zu", i);
		}
	}
	printf("slowest: %zu of 5 waits with the hog's time unknown, %lld "
	       "hidden-task gaps on CPU %d\n", unknown, gaps, cpu);
	cr_assert_geq(json_integer_value(json_object_get(hogrow, "runtime_ns")),
		      300000000, "the hog ran under 300 ms of its 600");
	/* the text table names it too */
	r = run_cmd((char *[]){ bin, "report", (char *)cap, "--comm",
				"abicap-waiter", "--slowest", "3", NULL });
	cr_assert_eq(r.code, 0);
	snprintf(seen, sizeof(seen), "abicap-hog:%d", hog);
	cr_assert(strstr(r.out, "Slowest run-queue waits (3 of"), "%s", r.out);
	cr_assert(strstr(r.out, seen), "the table does not name %s:\n%s", seen,
		  r.out);
	free(r.out);
	free(r.err);
	json_decref(hogrow);
	json_decref(rep);
}
