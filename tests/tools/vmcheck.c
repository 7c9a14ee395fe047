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

/* What the trace and the summary told, for the verdict. */
struct tally {
	long long ping, pong, start, end, rounds; /* the workload's */
	long long seen, rcvd, drop, late; /* abicap's summary (-1: none) */
	long long pp_switches, pp_sleeping, pp_wakeups, idle;
	long long newest, inversions, pp_cpus;
	json_t *events; /* events per type */
	char variant[64];
	char pp_on[4096]; /* a ping-pong switch was seen on CPU i */
};

/* A ping-pong switch or wakeup in the window, checked. */
static void pp_event(struct tally *t, json_t *j, const char *ev)
{
	if (!strcmp(ev, "sched_switch")) {
		long long p = geti(j, "prev_pid"), n = geti(j, "next_pid");
		const char *st;

		if (!((p == t->ping && n == t->pong) ||
		      (p == t->pong && n == t->ping)))
			return;
		st = gets_(j, "prev_state");
		t->pp_switches++;
		if (strcmp(gets_(j, "prev_comm"), p == t->ping ? "abc_ping" :
							       "abc_pong"))
			fail("switch from %lld: wrong comm %s", p,
			     gets_(j, "prev_comm"));
		/*
		 * S: blocked in read(); D: blocked on a lock (PREEMPT_RT's
		 * sleeping spinlocks report D); R: woken before it blocked;
		 * R+: preempted
		 */
		if (!strcmp(st, "S") || !strcmp(st, "D"))
			t->pp_sleeping++;
		else if (strcmp(st, "R") && strcmp(st, "R+"))
			fail("ping-pong switch with state %s", st);
	} else if (!strcmp(ev, "sched_wakeup")) {
		long long p = geti(j, "pid"), w = geti(j, "waker_pid");

		if (p != t->ping && p != t->pong)
			return;
		t->pp_wakeups++;
		if (w != (p == t->ping ? t->pong : t->ping))
			fail("wakeup of %s by pid %lld, not the other thread",
			     gets_(j, "comm"), w);
	}
}

/* The trace's JSON lines: counts, time order, the ping-pong's events. */
static void read_trace(const char *path, struct tally *t)
{
	FILE *f = fopen(path, "r");
	char line[4096];

	while (f && fgets(line, sizeof(line), f)) {
		json_t *j = json_loads(line, 0, NULL), *cnt;
		const char *ev;
		long long ts;

		if (!j) {
			fail("a trace line is not JSON: %.80s", line);
			continue;
		}
		ev = gets_(j, "event");
		cnt = json_object_get(t->events, ev);
		json_object_set_new(t->events, ev, json_integer(cnt ?
				    json_integer_value(cnt) + 1 : 1));
		ts = geti(j, "ts_ns");
		if (ts < t->newest)
			t->inversions++;
		else
			t->newest = ts;
		if (!strcmp(ev, "cpu_idle"))
			t->idle++;
		if (!strcmp(ev, "sched_switch") &&
		    !strncmp(gets_(j, "prev_comm"), "abc_p", 5) &&
		    geti(j, "cpu") >= 0 && geti(j, "cpu") < 4096)
			t->pp_on[geti(j, "cpu")] = 1;
		if (ts >= t->start && ts <= t->end)
			pp_event(t, j, ev);
		json_decref(j);
	}
	if (f)
		fclose(f);
	else
		fail("%s: no trace output", path);
}

/* The number ending just before p in line. */
static long long number_before(const char *line, const char *p)
{
	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return atoll(p);
}

/* abicap's summary on its stderr: counts, late records, the variant. */
static void read_summary(const char *path, struct tally *t)
{
	FILE *f = fopen(path, "r");
	char line[4096];

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, " events seen, ");

		if (p && sscanf(p, " events seen, %lld received, %lld dropped",
				&t->rcvd, &t->drop) == 2)
			t->seen = number_before(line, p);
		if (!strncmp(line, "  transport: perf buffer", 24))
			strncat(t->variant, ", perf buffer",
				sizeof(t->variant) - strlen(t->variant) - 1);
		p = strstr(line, " records were handed on out of time order");
		if (p)
			t->late = number_before(line, p);
		if (!strncmp(line, "  sched_switch ", 15)) {
			char *prog = strstr(line, "tp_btf");

			if (!prog)
				prog = strstr(line, "raw_tp");
			if (prog) {
				prog[strcspn(prog, "\n")] = 0;
				snprintf(t->variant, sizeof(t->variant), "%s",
					 prog);
			}
		}
	}
	if (f)
		fclose(f);
}

/* The verdict's failures, from what was told. */
static void judge(struct tally *t, long long all_cpus)
{
	if (t->seen < 0)
		fail("no summary on abicap's stderr");
	else if (t->drop != 0 || t->seen != t->rcvd)
		fail("lost events: %lld seen, %lld received, %lld dropped",
		     t->seen, t->rcvd, t->drop);
	if (t->rounds <= 0)
		fail("the workload made no round trips");
	if (t->pp_switches < t->rounds)
		fail("only %lld ping-pong switches for %lld rounds",
		     t->pp_switches, t->rounds);
	if (t->pp_sleeping < t->rounds / 2)
		fail("only %lld ping-pong switches in S or D", t->pp_sleeping);
	if (t->pp_wakeups < t->rounds / 2)
		fail("only %lld ping-pong wakeups", t->pp_wakeups);
	if (t->idle == 0)
		fail("no cpu_idle events");
	if (t->inversions != t->late)
		fail("%lld records out of time order, %lld of them counted",
		     t->inversions, t->late);
	for (int i = 0; i < 4096; i++)
		t->pp_cpus += t->pp_on[i];
	if (all_cpus && t->pp_cpus < all_cpus)
		fail("ping-pong switches on %lld CPUs of the %lld running one",
		     t->pp_cpus, all_cpus);
}

/* The ABICAP-RESULT line; exit status: 0 passed. */
static int result(const struct tally *t, json_t *check)
{
	json_t *sum = check ? json_object_get(check, "summary") : NULL;
	json_t *res, *fl = json_array();
	struct utsname u;

	uname(&u);
	res = json_pack("{s:s, s:s, s:i, s:i, s:i, s:s, s:O, s:I, s:I, s:I, "
			"s:I, s:I, s:I, s:b}",
			"kernel", u.release,
			"contract", check ? gets_(check, "verdict") : "none",
			"ok", sum ? geti(sum, "ok") : 0,
			"degraded", sum ? geti(sum, "degraded") : 0,
			"broken", sum ? geti(sum, "broken") : 0,
			"variant", t->variant, "events", t->events,
			"seen", t->seen, "dropped", t->drop, "rounds", t->rounds,
			"pp_switches", t->pp_switches, "pp_wakeups",
			t->pp_wakeups, "cpu_idle", t->idle, "pass", nfail == 0);
	json_object_set_new(res, "out_of_order", json_integer(t->inversions));
	json_object_set_new(res, "late", json_integer(t->late));
	json_object_set_new(res, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_set_new(res, "pp_cpus", json_integer(t->pp_cpus));
	for (int i = 0; i < nfail; i++)
		json_array_append_new(fl, json_string(fails[i]));
	json_object_set_new(res, "failures", fl);
	printf("ABICAP-RESULT ");
	json_dumpf(res, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
	printf("\n");
	return nfail ? 1 : 0;
}

int main(int argc, char **argv)
{
	static struct tally t = { .seen = -1, .rcvd = -1, .drop = -1,
				  .variant = "?" };
	json_t *check, *pp_start, *pp_end;
	long long all_cpus = 0;
	FILE *f;

	if (argc != 7 && argc != 8) {
		fprintf(stderr, "usage: vmcheck CHECK.json CHECK_RC PINGPONG.json "
			"TRACE.json TRACE.err TRACE_RC [ALL_CPUS]\n");
		return 2;
	}
	if (argc == 8)
		all_cpus = atoll(argv[7]);
	t.events = json_object();
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
	t.ping = geti(pp_start, "abc_ping");
	t.pong = geti(pp_start, "abc_pong");
	t.start = geti(pp_end, "start_ns");
	t.end = geti(pp_end, "end_ns");
	t.rounds = geti(pp_end, "rounds");
	if (atoi(argv[6]) != 0)
		fail("abicap trace exited %s", argv[6]);
	read_trace(argv[4], &t);
	read_summary(argv[5], &t);
	judge(&t, all_cpus);
	return result(&t, check);
}
