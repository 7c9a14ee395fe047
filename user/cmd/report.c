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
#include "capfile/report_group.h"
#include "capfile/report_json.h"
#include "capfile/report_read.h"
#include "capfile/report_text.h"
#include "cmd/commands.h"
#include "cmd/options.h"
#include "cmd/window_opts.h"
#include "lib/util.h"
#include "view/slowest.h"

static const struct opt report_opts[] = {
	{ "format", 'f', "FMT", "text (default) or json" },
	{ "pid", 'p', "PID", "only tasks of this process (tgid)" },
	{ "comm", 'c', "COMM", "only tasks with this name" },
	{ "top", 'n', "N", "rows per table (default 10)" },
	{ "by", OPT_LONG('b'), "KEY", "task (default), cgroup (the cgroup v2 path "
	  "each task was in) or container (Docker, containerd, CRI-O, Podman, "
	  "Kubernetes pods; tasks in none are \"(host)\"): the latency, off-CPU "
	  "and wakeup-chain tables by group; by cgroup, each with the kernel's "
	  "CPU quota throttling over the capture (cpu.stat, stored by record)" },
	{ "from-waking", OPT_LONG('w'), NULL, "a wait after a wakeup starts at "
	  "sched_waking (when the waker chose to wake it, as perf sched counts "
	  "its \"sch delay\"), not at sched_wakeup (when it was queued, as "
	  "runqlat counts); the capture must have sched_waking" },
	{ "slowest", OPT_LONG('s'), "N", "also list the N slowest run-queue "
	  "waits, each with when it started, its CPU, and the task that held "
	  "that CPU (the one switched out when the waiter ran): its time on "
	  "the CPU during the wait and its whole on-CPU runtime" },
	{ 0 },
};

const struct cmd_spec report_spec = {
	.name = "report",
	.synopsis =
"Usage: abicap report FILE [--format text|json] [--pid PID] [--comm COMM]\n"
"                         [--top N] [--by task|cgroup|container] [--from-waking]\n"
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

int do_report(int argc, char **argv)
{
	char err[ERRMSG_LEN];
	bool json = false, cut, from_waking = false;
	long top = 10, pid = 0;
	const char *comm = NULL;
	size_t n = 0;
	struct analysis a;
	json_t *meta, *trl;
	struct capmeta cm;
	struct captrailer ct;
	int mc;
	struct capr *r;
	enum group_by by = GROUP_TASK;
	struct grouping g = { 0 };
	struct cgnames *names = NULL;
	const char *key = NULL;
	struct capinfo ci;
	struct report_read_opts ro;
	struct hashtab cg_used = HASHTAB_INIT;
	struct opt_parser p;
	struct timewin win = TIMEWIN_ALL;
	struct slowest slow = { 0 };
	struct analysis_observer obs = { .ctx = &slow, .wait = slowest_wait };
	long nslow = 0;
	bool handled;
	int ch, c, ret;

	opt_parser_init(&p, &report_spec);
	while ((ch = opt_next(&p, argc, argv)) != -1) {
		c = window_opt(ch, optarg, &win, &handled);
		if (c)
			return c;
		if (handled)
			continue;
		switch (ch) {
		case OPT_LONG('b'):
			if (group_by_parse(optarg, &by)) {
				ab_error("--by '%s': use task, cgroup or container",
					 optarg);
				return EXIT_USAGE;
			}
			key = optarg;
			break;
		case 'f':
			if (opt_text_or_json(optarg, &json))
				return EXIT_USAGE;
			break;
		case 'p':
			if (opt_pid(optarg, &pid))
				return EXIT_USAGE;
			break;
		case 'c':
			comm = optarg;
			break;
		case 'n':
			if (opt_number("top", optarg, 1, 100000, &top))
				return EXIT_USAGE;
			break;
		case OPT_LONG('w'):
			from_waking = true;
			break;
		case OPT_LONG('s'):
			if (opt_number("slowest", optarg, 1, 100000, &nslow))
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
	if (window_check(&win))
		return EXIT_USAGE;
	if (slowest_init(&slow, (size_t)nslow)) {
		ab_error("out of memory");
		return EXIT_RUNTIME;
	}
	r = capr_open(argv[optind], err, sizeof(err));
	if (!r) {
		ab_error("%s", err);
		slowest_free(&slow);
		return EXIT_USAGE;
	}
	meta = json_loads(capr_meta(r), 0, NULL);
	if (!meta) {
		/* capr_open took it as a JSON object */
		ab_error("out of memory reading '%s'", argv[optind]);
		capr_close(r);
		slowest_free(&slow);
		return EXIT_RUNTIME;
	}
	mc = capmeta_read(&cm, capr_meta(r), err, sizeof(err));
	if (mc == -1)
		ab_warn("'%s': %s", argv[optind], err);
	if (mc == -ENOMEM || capinfo_read(&ci, &cm, r)) {
		ab_error("out of memory reading '%s'", argv[optind]);
		capmeta_free(&cm);
		capr_close(r);
		json_decref(meta);
		slowest_free(&slow);
		return EXIT_RUNTIME;
	}
	ro = (struct report_read_opts){ .pid = (int32_t)pid, .comm = comm,
		.ci = &ci, .from_waking = from_waking, .win = win,
		.obs = nslow ? &obs : NULL, .cg_used = &cg_used };
	c = report_read_records(&r, argv[optind], meta, &a, &n, &ro);
	if (c == -ENOENT || c == -ENOMEM || c == -EIO || c == -E2BIG) {
		hashtab_free(&cg_used);
		capmeta_free(&cm);
	}
	if (c == -ENOENT) {
		ab_error("'%s' has no sched_waking events for --from-waking: "
			 "record with -e including sched_waking, or leave "
			 "--from-waking out", argv[optind]);
		free(ci.drops);
		analysis_free(&a);
		capr_close(r);
		json_decref(meta);
		slowest_free(&slow);
		return EXIT_USAGE;
	}
	if (c == -ENOMEM || c == -EIO || c == -E2BIG) {
		free(ci.drops);
		if (c == -ENOMEM)
			ab_error("out of memory reading '%s'", argv[optind]);
		analysis_free(&a);
		capr_close(r);
		json_decref(meta);
		slowest_free(&slow);
		return c == -E2BIG ? EXIT_USAGE : EXIT_RUNTIME;
	}
	cut = capr_cut_short(r);
	if (cut)
		ab_warn("'%s' was cut short (no trailer): reporting the %zu records "
			"of its complete chunks", argv[optind], n);
	trl = capr_trailer(r) ? json_loads(capr_trailer(r), 0, NULL) : NULL;
	ci.damaged = capwarn_integrity(r, argv[optind]);
	mc = trl ? captrailer_read(&ct, capr_trailer(r), err, sizeof(err)) : 0;
	if (!trl)
		captrailer_init(&ct);
	if (mc == -1)
		ab_warn("'%s': %s", argv[optind], err);
	capinfo_dropped(&ci, r, trl ? &ct : NULL);
	ci.trailer = &ct;
	analysis_finish(&a);
	if (capwarn_no_task(&a, argv[optind], (int32_t)pid, comm)) {
		ret = EXIT_USAGE;
		goto done;
	}
	capwarn_window(argv[optind], &win, a.last_ts - a.first_ts);
	slowest_finish(&slow, &a);
	ret = nslow ? slowest_holders(&slow, argv[optind], meta, &ci, &win, &a) :
		      0;
	if (ret)
		goto done;
	capinfo_warn(&ci, r, argv[optind]);
	capwarn_bad_cpu(a.bad_cpu, a.ncpus);
	ret = ci.damaged ? EXIT_DAMAGED : EXIT_OK;
	if (a.oom) {
		ab_error("out of memory: some samples are not in the "
			 "percentiles and tables (free memory, or narrow the "
			 "report with --since/--until or --pid)");
		ret = EXIT_RUNTIME;
	}
	names = capture_cgnames(r, by != GROUP_TASK, &cg_used, &ct);
	hashtab_free(&cg_used);
	if (!names || (by != GROUP_TASK && group_analysis(&a, names, by, &ct, &g))) {
		ab_error("out of memory grouping '%s'", argv[optind]);
		capmeta_free(&cm);
		captrailer_free(&ct);
		free(ci.drops);
		cgnames_free(names);
		analysis_free(&a);
		json_decref(meta);
		json_decref(trl);
		capr_close(r);
		slowest_free(&slow);
		return EXIT_RUNTIME;
	}
	if (json) {
		json_t *out = report_json(&a, argv[optind], meta, cut, &ci);

		if (!out) {
			ab_error("out of memory writing the report of '%s'",
				 argv[optind]);
			ret = EXIT_RUNTIME;
			goto done;
		}
		if (trl)
			json_object_set(out, "trailer", trl);
		if (timewin_set(&win))
			json_object_set_new(out, "window", window_json(&win,
					    a.last_ts - a.first_ts));
		if (nslow)
			json_object_set_new(out, "slowest_waits",
					    slowest_json(&slow, a.first_ts));
		if (by != GROUP_TASK) {
			json_t *jg = report_json_groups(&g);

			json_object_set_new(out, "by", json_string(key));
			json_object_update(out, jg);
			json_decref(jg);
		}
		if (report_json_dump(stdout, out, &a, names)) {
			ab_error("out of memory writing the report of '%s'",
				 argv[optind]);
			ret = EXIT_RUNTIME;
		}
		putchar('\n');
		json_decref(out);
	} else {
		if (timewin_set(&win))
			window_text(stdout, &win, a.last_ts - a.first_ts);
		report_text(stdout, &a, argv[optind], meta, cut, (int)top,
			    by != GROUP_TASK ? &g : NULL, key, names, &ci);
		if (nslow)
			slowest_text(stdout, &slow, a.first_ts);
	}
done:
	hashtab_free(&cg_used);
	grouping_free(&g);
	cgnames_free(names);
	analysis_free(&a);
	capmeta_free(&cm);
	captrailer_free(&ct);
	slowest_free(&slow);
	free(ci.drops);
	json_decref(meta);
	json_decref(trl);
	capr_close(r);
	return ret;
}
