// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * build/vmcheck: runs inside a test VM (scripts/vmtest.sh) after abicap has
 * captured the ping-pong workload, and judges what it captured.
 *
 *   vmcheck CHECK.json CHECK_RC PINGPONG.json TRACE.json TRACE.err TRACE_RC
 *           [ALL_CPUS]
 *
 * Prints one line, "ABICAP-RESULT {...}", with the kernel, the contract
 * verdict, the program variant chosen, events per type, drops and the
 * failures found; exits 0 if the kernel passed. The trace must be in time
 * order but for the records abicap's summary counts as handed on out of
 * it. ALL_CPUS: a ping-pong ran on each of that many CPUs at once (the
 * many-vCPU guest): each must show its switches.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAX_FAIL 16

static char fails[MAX_FAIL][256];
static int nfail;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Record a failure once (a repeated one is not listed again). */
static void fail(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (int i = 0; i < nfail; i++)
		if (!strcmp(fails[i], msg))
			return;
	if (nfail < MAX_FAIL)
		snprintf(fails[nfail++], sizeof(fails[0]), "%s", msg);
}

static json_t *load_line(FILE *f)
{
	char line[4096];

	if (!fgets(line, sizeof(line), f))
		return NULL;
	return json_loads(line, 0, NULL);
}

static long long geti(json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

static const char *gets_(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

int main(int argc, char **argv)
{
	json_t *check, *pp_start, *pp_end, *res, *events = json_object();
	long long ping, pong, start, end, rounds, seen = -1, rcvd = -1, drop = -1;
	long long pp_switches = 0, pp_sleeping = 0, pp_wakeups = 0, idle = 0;
	long long newest = 0, inversions = 0, late = 0, all_cpus = 0, pp_cpus = 0;
	static char pp_on[4096]; /* a ping-pong switch was seen on CPU i */
	char line[4096], variant[64] = "?";
	struct utsname u;
	FILE *f;

	if (argc != 7 && argc != 8) {
		fprintf(stderr, "usage: vmcheck CHECK.json CHECK_RC PINGPONG.json "
			"TRACE.json TRACE.err TRACE_RC [ALL_CPUS]\n");
		return 2;
	}
	if (argc == 8)
		all_cpus = atoll(argv[7]);
	uname(&u);
	check = json_load_file(argv[1], 0, NULL);
	if (!check)
		fail("%s: abicap check printed no JSON", argv[1]);
	if (atoi(argv[2]) != 0)
		fail("abicap check exited %s", argv[2]);
	f = fopen(argv[3], "r");
	pp_start = f ? load_line(f) : NULL;
	pp_end = f ? load_line(f) : NULL;
	if (f)
		fclose(f);
	if (!pp_start || !pp_end) {
		fail("%s: the ping-pong workload did not report", argv[3]);
		pp_start = pp_start ? pp_start : json_object();
		pp_end = pp_end ? pp_end : json_object();
	}
	ping = geti(pp_start, "abc_ping");
	pong = geti(pp_start, "abc_pong");
	start = geti(pp_end, "start_ns");
	end = geti(pp_end, "end_ns");
	rounds = geti(pp_end, "rounds");
	if (atoi(argv[6]) != 0)
		fail("abicap trace exited %s", argv[6]);

	f = fopen(argv[4], "r");
	while (f && fgets(line, sizeof(line), f)) {
		json_t *j = json_loads(line, 0, NULL);
		const char *ev;
		long long ts;
		json_t *cnt;

		if (!j) {
			fail("a trace line is not JSON: %.80s", line);
			continue;
		}
		ev = gets_(j, "event");
		cnt = json_object_get(events, ev);
		json_object_set_new(events, ev, json_integer(cnt ?
				    json_integer_value(cnt) + 1 : 1));
		ts = geti(j, "ts_ns");
		if (ts < newest)
			inversions++;
		else
			newest = ts;
		if (!strcmp(ev, "cpu_idle"))
			idle++;
		if (!strcmp(ev, "sched_switch") &&
		    !strncmp(gets_(j, "prev_comm"), "abc_p", 5) &&
		    geti(j, "cpu") >= 0 && geti(j, "cpu") < 4096)
			pp_on[geti(j, "cpu")] = 1;
		if (ts < start || ts > end) {
			json_decref(j);
			continue;
		}
		if (!strcmp(ev, "sched_switch")) {
			long long p = geti(j, "prev_pid"), n = geti(j, "next_pid");

			if ((p == ping && n == pong) || (p == pong && n == ping)) {
				const char *st = gets_(j, "prev_state");

				pp_switches++;
				if (strcmp(gets_(j, "prev_comm"), p == ping ?
					   "abc_ping" : "abc_pong"))
					fail("switch from %lld: wrong comm %s", p,
					     gets_(j, "prev_comm"));
				/*
				 * S: blocked in read(); D: blocked on a lock
				 * (PREEMPT_RT's sleeping spinlocks report D);
				 * R: woken before it blocked; R+: preempted
				 */
				if (!strcmp(st, "S") || !strcmp(st, "D"))
					pp_sleeping++;
				else if (strcmp(st, "R") && strcmp(st, "R+"))
					fail("ping-pong switch with state %s", st);
			}
		} else if (!strcmp(ev, "sched_wakeup")) {
			long long p = geti(j, "pid"), w = geti(j, "waker_pid");

			if (p == ping || p == pong) {
				pp_wakeups++;
				if (w != (p == ping ? pong : ping))
					fail("wakeup of %s by pid %lld, not the "
					     "other thread", gets_(j, "comm"), w);
			}
		}
		json_decref(j);
	}
	if (f)
		fclose(f);
	else
		fail("%s: no trace output", argv[4]);

	f = fopen(argv[5], "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, " events seen, ");

		if (p && sscanf(p, " events seen, %lld received, %lld dropped",
				&rcvd, &drop) == 2) {
			while (p > line && p[-1] >= '0' && p[-1] <= '9')
				p--;
			seen = atoll(p);
		}
		if (!strncmp(line, "  transport: perf buffer", 24))
			strncat(variant, ", perf buffer",
				sizeof(variant) - strlen(variant) - 1);
		p = strstr(line, " records were handed on out of time order");
		if (p) {
			while (p > line && p[-1] >= '0' && p[-1] <= '9')
				p--;
			late = atoll(p);
		}
		if (!strncmp(line, "  sched_switch ", 15)) {
			char *prog = strstr(line, "tp_btf");

			if (!prog)
				prog = strstr(line, "raw_tp");
			if (prog) {
				prog[strcspn(prog, "\n")] = 0;
				snprintf(variant, sizeof(variant), "%s", prog);
			}
		}
	}
	if (f)
		fclose(f);
	if (seen < 0)
		fail("no summary on abicap's stderr");
	else if (drop != 0 || seen != rcvd)
		fail("lost events: %lld seen, %lld received, %lld dropped", seen, rcvd, drop);
	if (rounds <= 0)
		fail("the workload made no round trips");
	if (pp_switches < rounds)
		fail("only %lld ping-pong switches for %lld rounds", pp_switches, rounds);
	if (pp_sleeping < rounds / 2)
		fail("only %lld ping-pong switches in S or D", pp_sleeping);
	if (pp_wakeups < rounds / 2)
		fail("only %lld ping-pong wakeups", pp_wakeups);
	if (idle == 0)
		fail("no cpu_idle events");
	if (inversions != late)
		fail("%lld records out of time order, %lld of them counted",
		     inversions, late);
	for (int i = 0; i < 4096; i++)
		pp_cpus += pp_on[i];
	if (all_cpus && pp_cpus < all_cpus)
		fail("ping-pong switches on %lld CPUs of the %lld running one",
		     pp_cpus, all_cpus);

	res = json_pack("{s:s, s:s, s:i, s:i, s:i, s:s, s:o, s:I, s:I, s:I, "
			"s:I, s:I, s:I, s:b}",
			"kernel", u.release,
			"contract", check ? gets_(check, "verdict") : "none",
			"ok", check ? geti(json_object_get(check, "summary"), "ok") : 0,
			"degraded", check ? geti(json_object_get(check, "summary"),
						 "degraded") : 0,
			"broken", check ? geti(json_object_get(check, "summary"),
					       "broken") : 0,
			"variant", variant, "events", events,
			"seen", seen, "dropped", drop, "rounds", rounds,
			"pp_switches", pp_switches, "pp_wakeups", pp_wakeups,
			"cpu_idle", idle, "pass", nfail == 0);
	json_object_set_new(res, "out_of_order", json_integer(inversions));
	json_object_set_new(res, "late", json_integer(late));
	json_object_set_new(res, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_set_new(res, "pp_cpus", json_integer(pp_cpus));
	{
		json_t *fl = json_array();

		for (int i = 0; i < nfail; i++)
			json_array_append_new(fl, json_string(fails[i]));
		json_object_set_new(res, "failures", fl);
	}
	printf("ABICAP-RESULT ");
	json_dumpf(res, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
	printf("\n");
	return nfail ? 1 : 0;
}
