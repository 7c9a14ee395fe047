// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap report FILE: what a capture says about scheduling latency. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capfile.h"
#include "capfile/capinfo.h"
#include "capfile/capwarn.h"
#include "report/report_group.h"
#include "report/report_json.h"
#include "report/report_read.h"
#include "report/report_text.h"
#include "cmd/commands.h"
#include "cmd/options.h"
#include "cmd/window_opts.h"
#include "lib/util.h"
#include "report/slowest.h"

static const struct opt report_opts[] = {
	{ "format", 'f', "FMT", "text (default) or json" },
	{ "pid", 'p', "PID", "only tasks of this process (tgid)" },
	{ "comm", 'c', "COMM", "only tasks with this name" },
	{ "top", 'n', "N", "rows per table (default 10)" },
	{ "by", OPT_LONG('b'), "KEY", "task (default), cgroup (the cgroup v2 path "
	  "each task was in), container (Docker, containerd, CRI-O, Podman, "
	  "Kubernetes pods; tasks in none are \"(host)\") or process (its "
	  "threads together, named by the leader: \"hackbench:3340\"): the "
	  "latency, off-CPU "
	  "and wakeup-chain tables by group; by cgroup, each with the kernel's "
	  "CPU quota throttling over the capture (cpu.stat, stored by record)" },
	{ "from-waking", OPT_LONG('w'), NULL, "a wait after a wakeup starts at "
	  "sched_waking (when the waker chose to wake it, as perf sched counts "
	  "its \"sch delay\"), not at sched_wakeup (when it was queued, as "
	  "runqlat counts); the capture must have sched_waking" },
	{ "slowest", OPT_LONG('s'), "N", "also list the N slowest run-queue "
	  "waits, each with when it started, its CPU, and every task that "
	  "ran on that CPU during it with its time there (most first), then "
	  "the CPU's idle and unknown time: together the wait" },
	{ 0 },
};

const struct cmd_spec report_spec = {
	.name = "report",
	.synopsis =
"Usage: abicap report FILE [--format text|json] [--pid PID] [--comm COMM]\n"
"                         [--top N] [--by task|cgroup|container|process]\n"
"                         [--from-waking]\n"
"                         [--slowest N] [--since TIME] [--until TIME]\n"
"Read a capture file (abicap record) and report, for the tasks kept by the\n"
"filters: run-queue latency (a wakeup of a task not on a CPU, or being\n"
"preempted, until switched in) as a log2 histogram with p50/p90/p99/\n"
"p99.9/max, overall and per task; off-CPU time per task by the state it\n"
"left in, and voluntary and involuntary switches; per-CPU busy and idle\n"
"time, idle-state and frequency residency; wakeup chains, most frequent\n"
"and slowest.\n",
	.groups = { report_opts, opts_window, opts_help },
	.epilog =
"A wait is measured only where both its ends are in the file; in a capture\n"
"filtered to some tasks, only for those that passed the filter; and not\n"
"where it spans a window in which records were lost (such waits are counted\n"
"as left out). A task-filtered capture shows no CPU table.\n"
"Records are read in one order -- time, then CPU, event type and bytes --\n"
"whatever order the file holds them in, so a capture reports the same\n"
"however its records were written. Up to 512 Ki records are sorted in\n"
"memory; a larger capture is read twice: through a window of 512 Ki\n"
"records where that puts it in order (a recorder's file), else sorted\n"
"through a temporary file in $TMPDIR (else /tmp, unnamed: nothing is left\n"
"behind) of up to twice its uncompressed records (about 100 bytes each),\n"
"at most 128 times the capture's size and 64 MiB (ABICAP_SORT_TMP_MB sets\n"
"it): a file needing more is refused (exit 2).\n"
"Cgroups the kernel throttled for their CPU quota during the capture are\n"
"listed with the time throttled: run-queue waits that are the quota, not\n"
"a shortage of CPU.\n"
"A file cut short (no trailer: the recorder was killed) is reported up to\n"
"its last complete chunk, and says so. A part of the file damaged, missing,\n"
"doubled or out of place is named (with its byte offset) and counted, the\n"
"rest reported; the records lost while recording are never shown lower\n"
"than the file says (\"at least N\" where it cannot say exactly).\n"
"Exit: 0 ok, 2 bad usage, a file that is not a readable capture (not a\n"
"regular file, not a capture, a newer format, a damaged header), or a\n"
"--pid or --comm that no task of the capture has; 4 the temporary file\n"
"cannot be made or written (the message names $TMPDIR); 5 a capture read\n"
"with damaged, missing, doubled or out-of-place parts.\n",
};

/*
 * The window asked and what it covers of a capture whose records span
 * span ns (--until past the last record: cut there).
 */
static json_t *window_json(const struct timewin *w, uint64_t span)
{
	uint64_t until = w->until < span ? w->until : span;

	return json_pack("{s:I, s:o, s:I, s:I, s:b}", "since_ns",
			 (json_int_t)w->since, "until_ns", w->until == UINT64_MAX ?
			 json_null() : json_integer((json_int_t)w->until),
			 "covered_since_ns", (json_int_t)(w->since < until ?
			 w->since : until), "covered_until_ns", (json_int_t)until,
			 "cut_short", w->until != UINT64_MAX && w->until > span);
}

/* What the command line asks of report. */
struct rep_args {
	const char *path;
	bool json, from_waking;
	long top, pid, nslow;
	const char *comm, *key; /* key: --by's word */
	enum group_by by;
	struct timewin win;
};

/* One report's state, freed by rep_free whatever was reached. */
struct rep {
	struct capr *r;
	struct capmeta cm;
	struct captrailer ct;
	struct capinfo ci;
	struct analysis a;
	struct grouping g;
	struct cgnames *names;
	struct hashtab cg_used;
	struct slowest slow;
	bool cut;
};

static void rep_free(struct rep *s)
{
	hashtab_free(&s->cg_used);
	grouping_free(&s->g);
	cgnames_free(s->names);
	analysis_free(&s->a);
	capmeta_free(&s->cm);
	captrailer_free(&s->ct);
	slowest_free(&s->slow);
	free(s->ci.drops);
	capr_close(s->r);
}

/* The options into o: -1 to go on, else the exit code (--help: EXIT_OK). */
static int rep_parse(int argc, char **argv, struct rep_args *o)
{
	struct opt_parser p;
	bool handled;
	int ch, c;

	*o = (struct rep_args){ .top = 10, .by = GROUP_TASK, .win = TIMEWIN_ALL };
	opt_parser_init(&p, &report_spec);
	while ((ch = opt_next(&p, argc, argv)) != -1) {
		c = window_opt(ch, optarg, &o->win, &handled);
		if (c)
			return c;
		if (handled)
			continue;
		switch (ch) {
		case OPT_LONG('b'):
			if (group_by_parse(optarg, &o->by)) {
				ab_error("--by '%s': use task, cgroup, container "
					 "or process",
					 optarg);
				return EXIT_USAGE;
			}
			o->key = optarg;
			break;
		case 'f':
			if (opt_text_or_json(optarg, &o->json))
				return EXIT_USAGE;
			break;
		case 'p':
			if (opt_pid(optarg, &o->pid))
				return EXIT_USAGE;
			break;
		case 'c':
			o->comm = optarg;
			break;
		case 'n':
			if (opt_number("top", optarg, 1, 100000, &o->top))
				return EXIT_USAGE;
			break;
		case OPT_LONG('w'):
			o->from_waking = true;
			break;
		case OPT_LONG('s'):
			if (opt_number("slowest", optarg, 1, 100000, &o->nslow))
				return EXIT_USAGE;
			break;
		case 'h':
			cmd_help(&report_spec, stdout);
			return EXIT_OK;
		default:
			return opt_error(&report_spec, argc, argv, ch);
		}
	}
	if (argc - optind != 1) {
		ab_error("report needs one capture file (see abicap report --help)");
		return EXIT_USAGE;
	}
	o->path = argv[optind];
	return window_check(&o->win) ? EXIT_USAGE : -1;
}

/* The trailer, the integrity and what was lost, once the records are read. */
static void rep_trailer(struct rep *s, const char *path)
{
	char err[ERRMSG_LEN];
	int mc;

	s->cut = capr_cut_short(s->r);
	s->ci.damaged = capwarn_integrity(s->r, path);
	mc = capr_trailer(s->r) ? captrailer_read(&s->ct, capr_trailer(s->r),
						  err, sizeof(err)) : 0;
	/* no JSON object at all: the integrity said it (damaged) */
	if (mc == -1 && s->ct.raw)
		ab_warn("'%s': %s", path, err);
	capinfo_dropped(&s->ci, s->r, s->ct.raw ? &s->ct : NULL);
	s->ci.trailer = &s->ct;
}

/* Open o->path and read its records into s->a: 0 or an exit code (reported). */
static int rep_load(struct rep *s, const struct rep_args *o)
{
	struct analysis_observer obs = { .ctx = &s->slow, .wait = slowest_wait };
	struct report_read_opts ro;
	char err[ERRMSG_LEN];
	size_t n = 0;
	int c;

	s->r = capr_open(o->path, err, sizeof(err));
	if (!s->r) {
		ab_error("%s", err);
		return EXIT_USAGE;
	}
	c = capmeta_read(&s->cm, capr_meta(s->r), err, sizeof(err));
	if (c == -1)
		ab_warn("'%s': %s", o->path, err);
	if (c == -ENOMEM || capinfo_read(&s->ci, &s->cm, s->r)) {
		ab_error("out of memory reading '%s'", o->path);
		return EXIT_RUNTIME;
	}
	ro = (struct report_read_opts){ .pid = (int32_t)o->pid, .comm = o->comm,
		.ci = &s->ci, .from_waking = o->from_waking, .win = o->win,
		.obs = o->nslow ? &obs : NULL, .cg_used = &s->cg_used };
	c = report_read_records(&s->r, o->path, &s->a, &n, &ro);
	if (c == -ENOENT)
		ab_error("'%s' has no sched_waking events for --from-waking: "
			 "record with -e including sched_waking, or leave "
			 "--from-waking out", o->path);
	if (c == -ENOMEM)
		ab_error("out of memory reading '%s'", o->path);
	if (c == -ENOENT || c == -E2BIG)
		return EXIT_USAGE;
	if (c == -ENOMEM || c == -EIO)
		return EXIT_RUNTIME;
	if (capr_cut_short(s->r))
		ab_warn("'%s' was cut short (no trailer): reporting the %zu records "
			"of its complete chunks", o->path, n);
	rep_trailer(s, o->path);
	analysis_finish(&s->a);
	return 0;
}

/* The report as JSON on stdout: 0 or EXIT_RUNTIME (reported). */
static int rep_json(struct rep *s, const struct rep_args *o)
{
	json_t *out = report_json(&s->a, o->path, s->cut, &s->ci);
	int ret = 0;

	if (!out) {
		ab_error("out of memory writing the report of '%s'", o->path);
		return EXIT_RUNTIME;
	}
	if (s->ct.raw)
		json_object_set(out, "trailer", s->ct.raw);
	if (timewin_set(&o->win))
		json_object_set_new(out, "window", window_json(&o->win,
				    s->a.last_ts - s->a.first_ts));
	if (o->nslow)
		json_object_set_new(out, "slowest_waits",
				    slowest_json(&s->slow, s->a.first_ts));
	if (o->by != GROUP_TASK) {
		json_t *jg = report_json_groups(&s->g);

		json_object_set_new(out, "by", json_string(o->key));
		json_object_update(out, jg);
		json_decref(jg);
	}
	if (report_json_dump(stdout, out, &s->a, s->names)) {
		ab_error("out of memory writing the report of '%s'", o->path);
		ret = EXIT_RUNTIME;
	}
	putchar('\n');
	json_decref(out);
	return ret;
}

static void rep_text(struct rep *s, const struct rep_args *o)
{
	if (timewin_set(&o->win))
		window_text(stdout, &o->win, s->a.last_ts - s->a.first_ts);
	report_text(stdout, &s->a, o->path, s->cut, (int)o->top,
		    o->by != GROUP_TASK ? &s->g : NULL, o->key, s->names, &s->ci);
	if (o->nslow)
		slowest_text(stdout, &s->slow, s->a.first_ts);
}

/* After the records: the checks, the slowest waits' holders, the groups. */
static int rep_finish(struct rep *s, const struct rep_args *o)
{
	int ret;

	if (report_no_task(&s->a, o->path, (int32_t)o->pid, o->comm))
		return EXIT_USAGE;
	capwarn_window(o->path, &o->win, s->a.last_ts - s->a.first_ts);
	slowest_finish(&s->slow, &s->a);
	ret = o->nslow ? slowest_holders(&s->slow, o->path, &s->ci,
					 &o->win, &s->a) : 0;
	if (ret)
		return ret;
	capinfo_warn(&s->ci, s->r, o->path);
	capwarn_bad_cpu(s->a.bad_cpu, s->a.ncpus);
	s->names = capture_cgnames(s->r, o->by != GROUP_TASK, &s->cg_used,
				   &s->ct);
	if (!s->names || (o->by != GROUP_TASK &&
			  group_analysis(&s->a, s->names, o->by, &s->ct, &s->g))) {
		ab_error("out of memory grouping '%s'", o->path);
		return EXIT_RUNTIME;
	}
	return 0;
}

int do_report(int argc, char **argv)
{
	struct rep_args o;
	struct rep s = { .cg_used = HASHTAB_INIT };
	int ret = rep_parse(argc, argv, &o);

	if (ret >= 0)
		return ret;
	capmeta_init(&s.cm);
	captrailer_init(&s.ct);
	if (slowest_init(&s.slow, (size_t)o.nslow)) {
		ab_error("out of memory");
		return EXIT_RUNTIME;
	}
	ret = rep_load(&s, &o);
	if (!ret)
		ret = rep_finish(&s, &o);
	if (!ret) {
		ret = s.ci.damaged ? EXIT_DAMAGED : EXIT_OK;
		if (s.a.oom) {
			ab_error("out of memory: some samples are not in the "
				 "percentiles and tables (free memory, or narrow "
				 "the report with --since/--until or --pid)");
			ret = EXIT_RUNTIME;
		}
		if (o.json && rep_json(&s, &o))
			ret = EXIT_RUNTIME;
		else if (!o.json)
			rep_text(&s, &o);
	}
	rep_free(&s);
	return ret;
}
