// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Every loss the kernel side can have is counted, once: events lost in
 * aggregation (a full cgroup map), power events serve cannot keep (an idle
 * state or CPU beyond its maps), program runs the kernel skipped
 * (bpf_prog_info.recursion_misses).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "event/events.h"
#include "live/metrics.h"
#include "harness.h"
#include "lib/util.h"

#define EV(e) (1u << (e))

static void losses_init(void)
{
	require_kernel();
	scratch_init();
}

TestSuite(losses, .init = losses_init, .fini = scratch_fini, .timeout = 60);

/*
 * Fill the cgroup map (room for one) with an id no task has: from then on
 * every cgroup lookup of the programs fails. Programs race for the one slot
 * meanwhile: delete whatever took it until the id is in.
 */
static void fill_cgroup_map(struct capture *c)
{
	int fd = bpf_map__fd(bpf_object__find_map_by_name(capture_object(c),
							  "cg_stats"));
	struct abicap_cg_stats *zero = calloc(libbpf_num_possible_cpus(),
					      sizeof(*zero));
	__u64 none = ~0ull, key;
	int tries = 0;

	cr_assert(zero);
	while (bpf_map_update_elem(fd, &none, zero, BPF_NOEXIST)) {
		cr_assert_lt(++tries, 10000, "cannot fill the cgroup map: %s",
			     strerror(errno));
		if (!bpf_map_get_next_key(fd, NULL, &key))
			bpf_map_delete_elem(fd, &key);
	}
	free(zero);
}

/*
 * serve's aggregation with a full cgroup map: a switch has two cgroup
 * lookups and may queue its prev; each failing used to count the event as
 * lost again, so lost grew past seen (3 per switch at most). An event is
 * lost once, whatever failed; the reasons are counted on their own.
 */
Test(losses, lost_never_exceeds_seen_when_the_cgroup_map_is_full)
{
	struct capture_opts o = {
		.events = EV(ABICAP_EV_SCHED_SWITCH) | EV(ABICAP_EV_SCHED_WAKEUP) |
			  EV(ABICAP_EV_SCHED_WAKEUP_NEW),
		.aggregate = true, .max_cgroups = 1,
	};
	struct abicap_counter sum[ABICAP_EV_COUNT];
	uint64_t lost = 0;
	struct pingpong pp;
	struct capture *c;

	c = start_capture(&o, NULL);
	fill_cgroup_map(c);
	pingpong_run(&pp, 500, 0);
	capture_stop(c);
	cr_assert_eq(capture_counters(c, -1, sum), 0);
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		cr_expect_leq(sum[ev].dropped, sum[ev].seen,
			      "%s: %llu lost of %llu seen", event_name(ev),
			      (unsigned long long)sum[ev].dropped,
			      (unsigned long long)sum[ev].seen);
		lost += sum[ev].dropped;
	}
	/* every ping-pong switch had its statistics lost */
	cr_assert_geq(sum[ABICAP_EV_SCHED_SWITCH].dropped, 500,
		      "%llu switches lost",
		      (unsigned long long)sum[ABICAP_EV_SCHED_SWITCH].dropped);
	cr_assert_gt(lost, 0);
	capture_close(c);
}

#define FREQ_KHZ 1234567u

struct nest_count {
	uint64_t freq, freq_bad, other;
};

static int count_nested(void *ctx, const union abicap_rec *r)
{
	struct nest_count *n = ctx;

	if (r->hdr.type != ABICAP_EV_CPU_FREQUENCY)
		n->other++;
	else if (r->pw.state == FREQ_KHZ && r->pw.cpu_id == 0)
		n->freq++;
	else
		n->freq_bad++;
	return 0;
}

static volatile bool napping;

/* Sleep in short naps on CPU 0: each wakes from a timer interrupt there. */
static void *napper(void *arg)
{
	struct timespec ts = { 0, 20000 };
	cpu_set_t set;

	(void)arg;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (napping)
		nanosleep(&ts, NULL);
	return NULL;
}

/*
 * The perf buffer transport with programs nested on one CPU: cpu_frequency's
 * program run over and over on CPU 0 (BPF_PROG_TEST_RUN, interrupts on)
 * while timer interrupts there wake a napping thread, running sched_waking's
 * program inside it. Records built in one per-CPU slot came out with the
 * nested program's header and the outer one's length (undecodable, or the
 * wrong event); built on each program's stack every record is whole.
 */
static void nested_records_survive(enum transport t)
{
	struct capture_opts o = {
		.events = EV(ABICAP_EV_CPU_FREQUENCY) | EV(ABICAP_EV_SCHED_WAKING),
		.mode = ATTACH_RAW_TP, .transport = t,
	};
	uint64_t args[2] = { FREQ_KHZ, 0 }, runs = 0, aux[ABICAP_AUX_COUNT];
	struct abicap_counter sum[ABICAP_EV_COUNT];
	struct nest_count n = { 0 };
	char err[ERRMSG_LEN] = "";
	struct capture *c;
	uint64_t end;
	cpu_set_t set;
	pthread_t th;
	int code;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	cr_assert_eq(sched_setaffinity(0, sizeof(set), &set), 0);
	c = capture_open(&o, count_nested, &n, &code, err, sizeof(err));
	cr_assert(c, "%s", err);
	napping = true;
	cr_assert_eq(pthread_create(&th, NULL, napper, NULL), 0);
	end = mono_ns() + 1500000000ull;
	while (mono_ns() < end) {
		for (int i = 0; i < 2000; i++, runs++)
			cr_assert_eq(capture_test_run(c, ABICAP_EV_CPU_FREQUENCY,
						      args, 2), 0);
		cr_assert_geq(capture_poll(c, 0), 0);
	}
	napping = false;
	pthread_join(th, NULL);
	capture_stop(c);
	cr_assert_eq(capture_counters(c, -1, sum), 0);
	cr_assert_eq(sum[ABICAP_EV_CPU_FREQUENCY].dropped, 0);
	cr_expect_eq(capture_bad_records(c), 0, "%llu records undecodable "
		     "(of %llu runs)", (unsigned long long)capture_bad_records(c),
		     (unsigned long long)runs);
	cr_expect_eq(n.freq_bad, 0, "%llu cpu_frequency records damaged",
		     (unsigned long long)n.freq_bad);
	cr_assert_eq(n.freq, runs, "%llu cpu_frequency records whole of %llu "
		     "runs", (unsigned long long)n.freq, (unsigned long long)runs);
	cr_assert_gt(sum[ABICAP_EV_SCHED_WAKING].seen, 1000,
		     "the napper was woken %llu times",
		     (unsigned long long)sum[ABICAP_EV_SCHED_WAKING].seen);
	/* every waking record the programs kept came out, decodable */
	cr_assert_eq(n.other, sum[ABICAP_EV_SCHED_WAKING].seen -
			      sum[ABICAP_EV_SCHED_WAKING].dropped);
	cr_assert_eq(capture_aux(c, aux), 0);
	if (capture_nest_bytes(c))
		cr_assert_gt(aux[ABICAP_AUX_SLAB_NESTED], 0, "no program ran "
			     "nested: the slab's other path is untested");
	else
		cr_assert_eq(aux[ABICAP_AUX_SLAB_NESTED], 0);
	capture_close(c);
}

Test(losses, perfbuf_records_survive_programs_nested_on_their_cpu,
     .timeout = 120)
{
	nested_records_survive(TRANSPORT_PERFBUF);
}

/*
 * Slabs: a program nested in one writing to its CPU's slab writes into the
 * CPU's ring buffer (bpf/slab.bpf.h); both kinds whole, none lost.
 */
Test(losses, slab_records_survive_programs_nested_on_their_cpu,
     .timeout = 120)
{
	nested_records_survive(TRANSPORT_SLAB);
}

/* text has this whole line. */
static void has_line(const char *text, const char *line)
{
	char want[256];

	snprintf(want, sizeof(want), "\n%s\n", line);
	cr_assert(strstr(text, want), "expected the line '%s'; the lines of "
		  "that metric:\n%s", line, metric_lines(text, line));
}

/* abicap with these arguments, which must succeed. */
static struct run abicap_ok(char *const argv[])
{
	struct run r = run_cmd(argv);

	cr_assert_eq(r.code, 0, "%s", r.err);
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

static char *render(struct capture *c)
{
	struct metrics_ctx m = { .cap = c, .max_cgroups = 1024,
				 .names = cgnames_table() };
	char err[ERRMSG_LEN] = "", *text;
	size_t len;

	cr_assert(m.names);
	text = metrics_render(&m, &len, err, sizeof(err));
	cr_assert(text, "%s", err);
	metrics_fini(&m);
	cgnames_free(m.names);
	return text;
}

/*
 * serve keeps idle residency for ABICAP_IDLE_STATES states and frequencies
 * for ABICAP_MAX_CPUS CPUs: an event beyond them was left out without a
 * count. Driven through BPF_PROG_TEST_RUN with such arguments.
 */
Test(losses, power_events_beyond_the_maps_are_counted)
{
	struct capture_opts o = {
		.events = EV(ABICAP_EV_CPU_IDLE) | EV(ABICAP_EV_CPU_FREQUENCY),
		.mode = ATTACH_RAW_TP, .aggregate = true,
	};
	uint64_t idle20[2] = { 20, 5000 }, freq[2] = { 1800000, 5000 };
	uint64_t ok[2] = { 1800000, 1 }, aux[ABICAP_AUX_COUNT];
	struct abicap_counter sum[ABICAP_EV_COUNT];
	struct capture *c;
	char *text;

	c = start_capture(&o, NULL);
	cr_assert_eq(capture_test_run(c, ABICAP_EV_CPU_IDLE, idle20, 2), 0);
	cr_assert_eq(capture_test_run(c, ABICAP_EV_CPU_FREQUENCY, freq, 2), 0);
	cr_assert_eq(capture_test_run(c, ABICAP_EV_CPU_FREQUENCY, ok, 2), 0);
	capture_stop(c);
	cr_assert_eq(capture_aux(c, aux), 0);
	cr_assert_eq(aux[ABICAP_AUX_IDLE_STATE_BIG], 1);
	cr_assert_eq(aux[ABICAP_AUX_CPU_ID_BIG], 1);
	cr_assert_eq(capture_counters(c, -1, sum), 0);
	cr_assert_geq(sum[ABICAP_EV_CPU_IDLE].dropped, 1);
	cr_assert_leq(sum[ABICAP_EV_CPU_IDLE].dropped, sum[ABICAP_EV_CPU_IDLE].seen);
	cr_assert_eq(sum[ABICAP_EV_CPU_FREQUENCY].dropped, 1);
	text = render(c);
	has_line(text, "abicap_updates_lost_total{reason=\"idle_state_out_of_range\"} 1");
	has_line(text, "abicap_updates_lost_total{reason=\"cpu_out_of_range\"} 1");
	has_line(text, "abicap_cpu_frequency_hertz{cpu=\"1\"} 1800000000");
	free(text);
	capture_close(c);
}

/*
 * bpf_prog_info.recursion_misses of every attached program is read (0 after
 * a normal run here: nothing nests a program within itself) and shown in the
 * metrics, the summary, the capture's trailer and its report.
 */
Test(losses, recursion_misses_are_read_and_shown)
{
	struct capture_opts o = { .events = EV(ABICAP_EV_SCHED_SWITCH) |
					    EV(ABICAP_EV_CPU_IDLE),
				  .aggregate = true };
	struct capture_misses ms;
	struct pingpong pp;
	struct capture *c;
	char *text, *cap = scratch_path("m.abicap");
	struct run r;
	json_t *j, *m;

	c = start_capture(&o, NULL);
	pingpong_run(&pp, 100, 0);
	cr_assert_eq(capture_misses(c, &ms), 0);
	cr_assert(ms.on[ABICAP_EV_SCHED_SWITCH] && ms.on[ABICAP_EV_CPU_IDLE]);
	cr_assert(!ms.on[ABICAP_EV_SCHED_WAKING] && !ms.other_on[OTHER_TP_FORK] &&
		  !ms.other_on[OTHER_TP_FREE]);
	cr_assert_eq(ms.total, 0);
	text = render(c);
	has_line(text, "abicap_bpf_recursion_misses_total{event=\"sched_switch\"} 0");
	has_line(text, "abicap_bpf_recursion_misses_total{event=\"cpu_idle\"} 0");
	cr_assert_null(strstr(text, "abicap_bpf_recursion_misses_total{event=\"sched_waking\"}"),
		       "expected no sched_waking series:\n%s", metric_lines(text,
		       "abicap_bpf_recursion_misses_total{"));
	free(text);
	capture_close(c);

	r = abicap_ok((char *[]){ (char *)abicap_bin(), "trace", "-d", "0.3",
				  "-e", "sched_switch", NULL });
	cr_assert(strstr(r.err, " dropped, 0 missed\n"), "%s", r.err);
	cr_assert(strstr(r.err, "    DROPPED     MISSED  PROGRAM\n"), "%s", r.err);
	run_free(&r);

	r = abicap_ok((char *[]){ (char *)abicap_bin(), "record", "-o", cap,
				  "-d", "0.3", "--", "true", NULL });
	run_free(&r);
	r = abicap_ok((char *[]){ (char *)abicap_bin(), "report", cap, NULL });
	has_line(r.out, "missed while recording (program runs the kernel "
		 "skipped): 0");
	run_free(&r);
	r = abicap_ok((char *[]){ (char *)abicap_bin(), "report", "-f", "json",
				  cap, NULL });
	j = json_loads(r.out, 0, NULL);
	cr_assert(j, "%s", r.out);
	/* record -- COMMAND follows its children: the helpers are attached */
	m = json_object_get(json_object_get(j, "trailer"), "recursion_misses");
	cr_assert(json_is_integer(json_object_get(m, "sched_switch")), "%s", r.out);
	cr_assert(json_is_integer(json_object_get(m, "sched_process_fork")), "%s",
		  r.out);
	/* and, on 6.3+, the wakelists' three (a skipped one: a waker lost) */
	for (int i = OTHER_TP_CSD_QUEUE; i <= OTHER_TP_CSD_EXIT; i++)
		cr_assert_eq(json_is_integer(json_object_get(m, other_tp_name(i))),
			     kernel_has_wakelist_wakers(), "%s", r.out);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j,
		     "integrity"), "recursion_misses")), 0);
	json_decref(j);
	run_free(&r);
}
