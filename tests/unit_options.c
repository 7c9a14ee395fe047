// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#define _GNU_SOURCE
/* Option parsing: abicap trace's flags, event lists, CPU lists, numbers. */
#include <criterion/criterion.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include "lib/cpulist.h"
#include "event/events.h"
#include "cmd/capture_opts.h"
#include "cmd/commands.h"
#include "lib/util.h"
#include "live/drain.h"

static char err[ERRMSG_LEN];

static int parse(struct trace_opts *o, int argc, const char **argv)
{
	err[0] = 0;
	return capture_parse_args(&trace_spec, argc, (char **)argv, o, err,
				  sizeof(err));
}

#define PARSE(o, ...)                                                     \
	({                                                                \
		const char *_a[] = { "trace", __VA_ARGS__ };              \
		parse(o, sizeof(_a) / sizeof(_a[0]), _a);                 \
	})

Test(trace_args, defaults)
{
	struct trace_opts o;

	cr_assert_eq(PARSE(&o), EXIT_OK);
	cr_assert_eq(o.fmt, FMT_TEXT);
	cr_assert_eq(o.duration, 0);
	/* all but sched_waking (issue 36: its program finds wakers alone) */
	cr_assert_eq(o.cap.events, EVENTS_ALL & ~(1u << ABICAP_EV_SCHED_WAKING));
	cr_assert_eq(o.cap.npids, 0);
	cr_assert_null(o.cap.cpus);
	cr_assert_eq(o.cap.mode, ATTACH_AUTO);
	cr_assert_not(o.help);
	cr_assert_eq(PARSE(&o, "-e", "all"), EXIT_OK);
	cr_assert_eq(o.cap.events, EVENTS_ALL);
}

Test(trace_args, every_flag)
{
	struct trace_opts o;
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", getpid());
	cr_assert_eq(PARSE(&o, "--format", "json", "-d", "2.5", "--events",
			   "sched_switch,sched_waking", "-p", pid, "-C", "0",
			   "-b", "3", "--attach", "raw_tp", "-v"),
		     EXIT_OK, "%s", err);
	cr_assert_eq(o.fmt, FMT_JSON);
	cr_assert_float_eq(o.duration, 2.5, 1e-9);
	cr_assert_eq(o.cap.events, (1u << ABICAP_EV_SCHED_SWITCH) |
					   (1u << ABICAP_EV_SCHED_WAKING));
	cr_assert_eq(o.cap.npids, 1);
	cr_assert_eq(o.cap.pids[0], getpid());
	cr_assert_not_null(o.cap.cpus);
	cr_assert_eq(o.cap.cpus[0], 1);
	cr_assert_eq(o.cap.ringbuf_bytes, 3u << 20);
	cr_assert_eq(o.cap.mode, ATTACH_RAW_TP);
	cr_assert(o.cap.verbose);
}

Test(trace_args, pid_filter_drops_power_events)
{
	struct trace_opts o;
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", getpid());
	cr_assert_eq(PARSE(&o, "-p", pid), EXIT_OK, "%s", err);
	cr_assert_eq(o.cap.events, ((1u << ABICAP_EV_CPU_IDLE) - 1) &
				   ~(1u << ABICAP_EV_SCHED_WAKING));
	cr_assert_eq(PARSE(&o, "-p", pid, "-e", "all"), EXIT_USAGE);
	cr_assert_eq(PARSE(&o, "-p", pid, "-e", "cpu_idle"), EXIT_USAGE);
	cr_assert(strstr(err, "belong to no task"), "%s", err);
}

static void *idle_thread(void *arg)
{
	*(pid_t *)arg = gettid();
	pause();
	return NULL;
}

Test(trace_args, thread_id_is_not_a_pid)
{
	struct trace_opts o;
	pthread_t th;
	volatile pid_t tid = 0;
	char arg[16], want[64];

	cr_assert(!pthread_create(&th, NULL, idle_thread, (void *)&tid));
	while (!tid)
		usleep(1000);
	snprintf(arg, sizeof(arg), "%d", tid);
	snprintf(want, sizeof(want), "is a thread of process %d", getpid());
	cr_assert_eq(PARSE(&o, "-p", arg), EXIT_USAGE);
	cr_assert(strstr(err, want), "%s", err);
}

Test(trace_args, help)
{
	struct trace_opts o;

	cr_assert_eq(PARSE(&o, "--help"), EXIT_OK);
	cr_assert(o.help);
	cr_assert_eq(PARSE(&o, "-h"), EXIT_OK);
	cr_assert(o.help);
}

Test(trace_args, bad_values_name_the_problem)
{
	static const struct {
		const char *argv[3];
		int argc;
		const char *says;
	} cases[] = {
		{ { "--format", "xml" }, 2, "--format 'xml': use text or json" },
		{ { "-d", "0" }, 2, "--duration '0' is not a positive number" },
		{ { "-d", "-1" }, 2, "not a positive number" },
		{ { "-d", "5s" }, 2, "not a positive number" },
		{ { "-d", "nan" }, 2, "not a positive number" },
		{ { "-e", "sched_foo" }, 2, "unknown event 'sched_foo'" },
		{ { "-e", "" }, 2, "--events is empty" },
		{ { "-e", "sched_switch," }, 2, "unknown event ''" },
		{ { "-p", "abc" }, 2, "-p 'abc' is not a process id" },
		{ { "-p", "0" }, 2, "is not a process id" },
		{ { "-p", "2147483647" }, 2, "no such process" },
		{ { "-C", "x" }, 2, "-C 'x' is not a CPU list" },
		{ { "-C", "4096" }, 2, "CPU 4096 does not exist" },
		{ { "-b", "0" }, 2, "--buffer-size '0'" },
		{ { "--attach", "kprobe" }, 2, "--attach 'kprobe'" },
		{ { "--tid", "x" }, 2, "--tid 'x' is not a thread id" },
		{ { "--comm", "a-name-longer-than-15" }, 2, "a task name is 1 to 15 bytes" },
		{ { "-d" }, 1, "option '-d' needs a value" },
		{ { "--nope" }, 1, "unknown option '--nope'" },
		{ { "stray" }, 1, "unexpected argument 'stray'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[4] = { "trace", cases[i].argv[0],
					cases[i].argv[1] };
		struct trace_opts o;

		cr_assert_eq(parse(&o, cases[i].argc + 1, argv), EXIT_USAGE,
			     "case %zu accepted", i);
		cr_assert(strstr(err, cases[i].says), "case %zu: '%s' lacks '%s'",
			  i, err, cases[i].says);
		cr_assert_null(strchr(err, '\n'), "one line: %s", err);
	}
}

Test(trace_args, help_names_every_option)
{
	static const char *opts[] = { "--format", "--duration", "--events",
				      "--pid", "--cpu", "--buffer-size",
				      "--attach", "--contract", "--transport",
				      "--tid", "--comm", "--drain-threads",
				      "--verbose",
				      "--help" };

	char *help = NULL;
	size_t len;
	FILE *f = open_memstream(&help, &len);

	cmd_help(&trace_spec, f);
	fclose(f);
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		cr_assert(strstr(help, opts[i]), "%s missing", opts[i]);
	cr_assert(strstr(help, "Exit: 0 ok, 1 kernel"));
	free(help);
}

Test(event_list, names_and_all)
{
	unsigned int m;

	cr_assert(parse_event_list("all", &m, err, sizeof(err)));
	cr_assert_eq(m, EVENTS_ALL);
	cr_assert(parse_event_list("cpu_idle,sched_wakeup_new", &m, err,
				   sizeof(err)));
	cr_assert_eq(m, (1u << ABICAP_EV_CPU_IDLE) |
				(1u << ABICAP_EV_SCHED_WAKEUP_NEW));
	/* a prefix of a name is not the name */
	cr_assert_not(parse_event_list("sched_wake", &m, err, sizeof(err)));
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		cr_assert_eq(event_by_name(event_name(ev),
					   strlen(event_name(ev))),
			     (int)ev);
	cr_assert_str_eq(event_group(ABICAP_EV_CPU_FREQUENCY), "power");
	cr_assert_null(event_name(ABICAP_EV_COUNT));
}

Test(cpulist, forms)
{
	uint8_t set[8];

	cr_assert(parse_cpulist("0,2-3,7", set, 8, err, sizeof(err)));
	cr_assert_arr_eq(set, ((uint8_t[]){ 1, 0, 1, 1, 0, 0, 0, 1 }), 8);
	cr_assert(parse_cpulist("5", set, 8, err, sizeof(err)));
	cr_assert_arr_eq(set, ((uint8_t[]){ 0, 0, 0, 0, 0, 1, 0, 0 }), 8);
	cr_assert_not(parse_cpulist("3-1", set, 8, err, sizeof(err)));
	cr_assert_not(parse_cpulist("1,", set, 8, err, sizeof(err)));
	cr_assert_not(parse_cpulist("-1", set, 8, err, sizeof(err)));
	cr_assert_not(parse_cpulist("", set, 8, err, sizeof(err)));
	cr_assert_not(parse_cpulist("8", set, 8, err, sizeof(err)));
	cr_assert(strstr(err, "this machine has CPUs 0-7"), "%s", err);
}

Test(numbers, strict)
{
	long v;
	double d;

	cr_assert(parse_long("42", 0, 100, &v));
	cr_assert_eq(v, 42);
	cr_assert_not(parse_long("42x", 0, 100, &v));
	cr_assert_not(parse_long(" 42", 0, 100, &v));
	cr_assert_not(parse_long("101", 0, 100, &v));
	cr_assert_not(parse_long("99999999999999999999", 0, 100, &v));
	cr_assert(parse_seconds("0.5", &d));
	cr_assert_float_eq(d, 0.5, 1e-12);
	cr_assert_not(parse_seconds("inf", &d));
	cr_assert_not(parse_seconds("0", &d));
}

/* n children that wait for SIGKILL; their pids as "a,b,c" into list. */
static void spawn_idle(pid_t *kids, int n, char *list, size_t len)
{
	size_t used = 0;

	list[0] = 0;
	for (int i = 0; i < n; i++) {
		kids[i] = fork();
		cr_assert_geq(kids[i], 0);
		if (!kids[i]) {
			/* gone with the test, even when an assertion ends it */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				pause();
		}
		/* 7 digits whatever the pid (pids wrap to 3 digits): > 255 bytes */
		used += snprintf(list + used, len - used, "%s%07d", i ? "," : "",
				 kids[i]);
		cr_assert_lt(used, len);
	}
}

static void reap(pid_t *kids, int n)
{
	for (int i = 0; i < n; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
}

/*
 * issue 17: a list over 255 bytes was cut there, and the cut followed. opt
 * is -p or --tid: every id is taken, in order, ours last.
 */
static void long_list_parsed_whole(const char *opt)
{
	enum { N = ABICAP_MAX_PIDS - 1 }; /* with ours: the limit exactly */
	struct trace_opts o;
	pid_t kids[N];
	char list[N * 12 + 16], tail[16];
	bool tids = !strcmp(opt, "--tid");
	const int32_t *ids;
	int ret;

	spawn_idle(kids, N, list, sizeof(list));
	snprintf(tail, sizeof(tail), ",%d", getpid());
	strcat(list, tail);
	cr_assert_gt(strlen(list), 255);
	ret = PARSE(&o, opt, list);
	reap(kids, N);
	cr_assert_eq(ret, EXIT_OK, "%s", err);
	cr_assert_eq(tids ? o.cap.ntids : o.cap.npids, N + 1);
	ids = tids ? o.cap.tids : o.cap.pids;
	for (int i = 0; i < N; i++)
		cr_assert_eq(ids[i], kids[i]);
	cr_assert_eq(ids[N], getpid());
}

Test(trace_args, long_pid_list_parsed_whole)
{
	long_list_parsed_whole("-p");
}

Test(trace_args, long_tid_list_parsed_whole)
{
	long_list_parsed_whole("--tid");
}

Test(trace_args, too_many_pids_is_an_error)
{
	enum { N = ABICAP_MAX_PIDS + 1 };
	struct trace_opts o;
	pid_t kids[N];
	char list[N * 12 + 16], want[64];
	int ret, ret2;

	spawn_idle(kids, N, list, sizeof(list));
	char err1[ERRMSG_LEN];

	ret = PARSE(&o, "-p", list);
	snprintf(err1, sizeof(err1), "%s", err);
	ret2 = PARSE(&o, "--tid", list);
	reap(kids, N);
	snprintf(want, sizeof(want), "at most %d", ABICAP_MAX_PIDS);
	cr_assert_eq(ret, EXIT_USAGE);
	cr_assert(strstr(err1, want), "%s", err1);
	cr_assert_eq(ret2, EXIT_USAGE);
	cr_assert(strstr(err, want), "%s", err);
}

/* the same pid twice is one pid: the limit counts processes */
Test(trace_args, repeated_pid_counts_once)
{
	struct trace_opts o;
	char list[ABICAP_MAX_PIDS * 24];
	size_t used = 0;

	for (int i = 0; i < ABICAP_MAX_PIDS + 5; i++)
		used += snprintf(list + used, sizeof(list) - used, "%s%d",
				 i ? "," : "", getpid());
	cr_assert_eq(PARSE(&o, "-p", list), EXIT_OK, "%s", err);
	cr_assert_eq(o.cap.npids, 1);
	cr_assert_eq(PARSE(&o, "-p", "1", "-p", "1"), EXIT_OK, "%s", err);
	cr_assert_eq(o.cap.npids, 1);
}

/*
 * record's long options given to trace are named as such, not by their
 * value ("unknown option 'x'" for --output x, once).
 */
Test(trace_args, other_commands_option_named_not_its_value)
{
	struct trace_opts o;

	cr_assert_eq(PARSE(&o, "--output", "x"), EXIT_USAGE);
	cr_assert_str_eq(err, "unknown option '--output' (see abicap trace "
			 "--help)");
	cr_assert_eq(PARSE(&o, "--perfetto=t.pftrace"), EXIT_USAGE);
	cr_assert(strstr(err, "'--perfetto'"), "%s", err);
	cr_assert_eq(PARSE(&o, "-o", "x"), EXIT_USAGE);
	cr_assert(strstr(err, "unknown option '-o'"), "%s", err);
}

/* --drain-threads: auto by default, 0, N up to the CPUs' count. */
Test(trace_args, drain_threads)
{
	struct trace_opts o;
	int ncpus = libbpf_num_possible_cpus();
	char n[16];

	cr_assert_eq(PARSE(&o), EXIT_OK);
	cr_assert_eq(o.cap.drain_threads, DRAIN_AUTO);
	cr_assert_eq(PARSE(&o, "--drain-threads", "0"), EXIT_OK);
	cr_assert_eq(o.cap.drain_threads, 0);
	cr_assert_eq(PARSE(&o, "--drain-threads", "1"), EXIT_OK);
	cr_assert_eq(o.cap.drain_threads, 1);
	cr_assert_eq(PARSE(&o, "--drain-threads", "auto"), EXIT_OK);
	cr_assert_eq(o.cap.drain_threads, DRAIN_AUTO);
	snprintf(n, sizeof(n), "%d", ncpus);
	cr_assert_eq(PARSE(&o, "--drain-threads", n), EXIT_OK);
	cr_assert_eq(o.cap.drain_threads, ncpus);
	cr_assert_eq(PARSE(&o, "--drain-threads", "1", "--transport", "percpu"),
		     EXIT_OK);
	/* auto and 0 go with any transport: auto adds none without per-CPU rings */
	cr_assert_eq(PARSE(&o, "--drain-threads", "0", "--transport", "ringbuf"),
		     EXIT_OK);
	cr_assert_eq(PARSE(&o, "--transport", "perfbuf"), EXIT_OK);
	snprintf(n, sizeof(n), "%d", ncpus + 1);
	cr_assert_eq(PARSE(&o, "--drain-threads", n), EXIT_USAGE);
	cr_assert(strstr(err, "at most"), "%s", err);
	cr_assert_eq(PARSE(&o, "--drain-threads", "-1"), EXIT_USAGE);
	cr_assert_eq(PARSE(&o, "--drain-threads", ""), EXIT_USAGE);
	cr_assert_eq(PARSE(&o, "--transport", "ringbuf", "--drain-threads", "2"),
		     EXIT_USAGE);
	cr_assert(strstr(err, "exclude each other"), "%s", err);
}
