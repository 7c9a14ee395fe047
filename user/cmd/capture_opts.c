// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The capture options of trace and record (and the pieces serve shares):
 * one table, one parser, one --help text for each option.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "abi/contract.h"
#include "cmd/capture_opts.h"
#include "event/cgroup.h"
#include "event/events.h"
#include "lib/cpulist.h"
#include "lib/util.h"
#include "live/drain.h"
#include "live/runloop.h"

/* The capture options trace and record share (and their --help lines). */
const struct opt opts_capture_filter[] = {
	{ "events", 'e', "LIST", "comma-separated events, or all: sched_switch, "
	  "sched_wakeup, sched_wakeup_new, sched_waking, cpu_idle, cpu_frequency "
	  "(default: all but sched_waking, and each sched_wakeup names its "
	  "waker; ask for its records for report --from-waking)" },
	{ "pid", 'p', "PID[,PID]", "only sched events involving these processes "
	  "(as prev/next, wakee or waker; threads included); power events "
	  "belong to no process and are left out" },
	{ "tid", OPT_LONG('i'), "TID[,TID]", "only sched events involving these "
	  "threads" },
	{ "comm", OPT_LONG('n'), "NAME", "only sched events involving a task of "
	  "this name" },
	{ "cgroup", OPT_LONG('g'), "PATH", "only sched events involving a task "
	  "in this cgroup v2 subtree (/system.slice/x.service, or a path under "
	  "the cgroup2 mount); task filters combine: a task must pass each" },
	{ "cpu", 'C', "CPULIST", "only events on these CPUs, e.g. 0,2-3" },
	{ 0 },
};

const struct opt opts_capture_buffer[] = {
	{ "buffer-size", 'b', "MB", "buffer memory for all CPUs together, "
	  "1-2048 (default 16, or 1 per CPU where more): each CPU's ring "
	  "buffer is the power of 2 at or below its even share, at least a "
	  "page (too little for the CPUs is refused); one shared ring buffer "
	  "is the budget rounded up to a power of 2" },
	{ "transport", OPT_LONG('t'), "T", "auto (default: slab on x86-64, "
	  "else percpu, where the kernel holds ring buffers in an array, else "
	  "ringbuf; perfbuf where the contract finds the ring buffer's lock "
	  "unsafe), slab (x86-64: each CPU's records in an array user space "
	  "maps, written without the ring buffer's lock; a program nested on "
	  "the CPU writes into the CPU's ring buffer of 64 KiB, beyond the "
	  "budget), percpu (a ring buffer per CPU, no lock shared between "
	  "CPUs), ringbuf (one ring buffer shared by every CPU) or perfbuf; "
	  "records come out in time order with each" },
	{ "drain-threads", OPT_LONG('D'), "N", "threads that drain the per-CPU "
	  "ring buffers besides the one that merges and writes: auto "
	  "(default: none at first; one more, taking a group of the rings, "
	  "after each second the consumer was busy over 70% of, up to the "
	  "online CPUs minus 1 (at most 8); each one said on stderr), 0 (one "
	  "thread does everything) or N from 1 to the CPUs' count (the rings "
	  "split evenly among N threads from the start); not with --transport "
	  "ringbuf or perfbuf" },
	{ 0 },
};

/* serve's too */
const struct opt opts_capture_kernel[] = {
	{ "attach", OPT_LONG('a'), "MODE", "auto (default: tp_btf where the "
	  "kernel has it), tp_btf or raw_tp" },
	{ "contract", 'c', "FILE", "ABI contract to hold the kernel to before "
	  "attaching (default: the built-in one; see abicap check); refused "
	  "if it omits an item the programs loaded depend on" },
	{ 0 },
};

int resolve_cgroup_option(const char *path, char *root, size_t rootlen,
			  struct capture_opts *cap, char *err, size_t errlen)
{
	char why[ERRMSG_LEN];
	unsigned int level;

	if (cgroup_root(root, rootlen, why, sizeof(why))) {
		snprintf(err, errlen, "%s%s", path ? "--cgroup: " : "", why);
		return EXIT_KERNEL;
	}
	if (!path)
		return EXIT_OK;
	if (cgroup_resolve(root, path, &cap->cgroup_id, &level, err, errlen))
		return EXIT_USAGE;
	cap->cgroup_level = level;
	return EXIT_OK;
}

int parse_duration(const char *arg, double *secs, char *err, size_t errlen)
{
	if (parse_seconds(arg, secs))
		return 0;
	snprintf(err, errlen, "--duration '%s' is not a positive number of "
		 "seconds", arg);
	return -1;
}

int parse_attach_mode(const char *arg, enum attach_mode *mode, char *err,
		      size_t errlen)
{
	if (!strcmp(arg, "auto")) {
		*mode = ATTACH_AUTO;
	} else if (!strcmp(arg, "tp_btf")) {
		*mode = ATTACH_TP_BTF;
	} else if (!strcmp(arg, "raw_tp")) {
		*mode = ATTACH_RAW_TP;
	} else {
		snprintf(err, errlen, "--attach '%s': use auto, tp_btf or raw_tp",
			 arg);
		return -1;
	}
	return 0;
}

/* The process a thread id belongs to (from /proc), or -1 if unknown. */
static long tgid_of(long tid)
{
	char path[64], line[128];
	long tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/*
 * -p PID[,PID] (tids false) or --tid TID[,TID]: ids that exist, each once,
 * appended to ids[*n]; read in place, whatever the list's length.
 */
static int parse_id_list(const char *arg, bool tids, int32_t *ids, int *n,
			 char *err, size_t errlen)
{
	const char *opt = tids ? "--tid" : "-p";
	const char *what = tids ? "thread" : "process";
	const char *p = arg;

	for (;;) {
		size_t len = strcspn(p, ",");
		char tok[16];
		long id, tgid;
		bool dup = false;

		tok[0] = 0;
		if (len < sizeof(tok)) {
			memcpy(tok, p, len);
			tok[len] = 0;
		}
		if (!tok[0] || !parse_long(tok, 1, 0x7fffffff, &id)) {
			/* a long bad token is shown cut, and marked so */
			snprintf(err, errlen, "%s '%.*s%s' is not a %s id (a "
				 "positive number)", opt, (int)(len > 40 ? 40 : len),
				 p, len > 40 ? "..." : "", what);
			return EXIT_USAGE;
		}
		if (kill((pid_t)id, 0) && errno == ESRCH) {
			snprintf(err, errlen, "%s %ld: no such %s", opt, id, what);
			return EXIT_USAGE;
		}
		if (!tids) {
			tgid = tgid_of(id);
			if (tgid > 0 && tgid != id) {
				snprintf(err, errlen, "-p %ld is a thread of "
					 "process %ld: give the process id (-p %ld)",
					 id, tgid, tgid);
				return EXIT_USAGE;
			}
		}
		for (int i = 0; i < *n; i++)
			dup |= ids[i] == id;
		if (!dup) {
			if (*n == ABICAP_MAX_PIDS) {
				snprintf(err, errlen, "%s: at most %d %s (the "
					 "filter map's size); filter by --cgroup "
					 "or --comm instead", opt, ABICAP_MAX_PIDS,
					 tids ? "threads" : "processes");
				return EXIT_USAGE;
			}
			ids[(*n)++] = (int32_t)id;
		}
		if (!p[len])
			return EXIT_OK;
		p += len + 1;
	}
}

int parse_drain_threads(const char *arg, int ncpus, int *n, char *err,
			size_t errlen)
{
	long v;

	if (!strcmp(arg, "auto")) {
		*n = DRAIN_AUTO;
		return 0;
	}
	if (!parse_long(arg, 0, 0x7fffffff, &v)) {
		snprintf(err, errlen, "--drain-threads '%s': use auto, 0 or a "
			 "number of threads from 1 to %d (this machine's CPUs)",
			 arg, ncpus);
		return -1;
	}
	if (v > ncpus) {
		snprintf(err, errlen, "--drain-threads %ld: at most %d here (a "
			 "thread drains at least one CPU's ring buffer, and there "
			 "are %d)", v, ncpus, ncpus);
		return -1;
	}
	*n = (int)v;
	return 0;
}

#define POWER_EVENTS \
	((1u << ABICAP_EV_CPU_IDLE) | (1u << ABICAP_EV_CPU_FREQUENCY))

/* Power events belong to no task: task filters leave them out, or refuse them. */
static int pid_filter_events(struct capture_opts *c, bool events_given,
			     char *err, size_t errlen)
{
	if (!c->npids && !c->ntids && !c->comm[0])
		return EXIT_OK;
	if (events_given && (c->events & POWER_EVENTS)) {
		snprintf(err, errlen, "-p, --tid and --comm cannot select cpu_idle "
			 "or cpu_frequency (they belong to no task): leave them "
			 "out of --events, or drop the task filter");
		return EXIT_USAGE;
	}
	c->events &= ~POWER_EVENTS;
	return EXIT_OK;
}

/* --format: text or json. 0, or -1 with err. */
static int parse_format(const char *s, enum out_format *fmt, char *err,
			size_t errlen)
{
	if (!strcmp(s, "text")) {
		*fmt = FMT_TEXT;
	} else if (!strcmp(s, "json")) {
		*fmt = FMT_JSON;
	} else {
		snprintf(err, errlen, "--format '%s': use text or json", s);
		return -1;
	}
	return 0;
}

/* --transport: auto, slab, ringbuf, perfbuf or percpu. 0, or -1 with err. */
static int parse_transport(const char *s, enum transport *t, char *err,
			   size_t errlen)
{
	static const struct {
		const char *name;
		enum transport t;
	} names[] = {
		{ "auto", TRANSPORT_AUTO }, { "ringbuf", TRANSPORT_RINGBUF },
		{ "perfbuf", TRANSPORT_PERFBUF }, { "percpu", TRANSPORT_PERCPU },
		{ "slab", TRANSPORT_SLAB },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			*t = names[i].t;
			return 0;
		}
	snprintf(err, errlen, "--transport '%s': use auto, slab, percpu, "
		 "ringbuf or perfbuf", s);
	return -1;
}

int capture_parse_args(const struct cmd_spec *spec, int argc, char **argv,
		       struct trace_opts *o, char *err, size_t errlen)
{
	bool record = spec->stop_at_operand;
	const char *cmd = spec->name;
	int ncpus = libbpf_num_possible_cpus();
	bool events_given = false;
	struct opt_parser p;
	long mb;
	int ch;

	memset(o, 0, sizeof(*o));
	o->cap.events = EVENTS_DEFAULT;
	o->cap.drain_threads = DRAIN_AUTO;
	opt_parser_init(&p, spec);
	while ((ch = opt_next(&p, argc, argv)) != -1) {
		switch (ch) {
		case 'f':
			if (parse_format(optarg, &o->fmt, err, errlen))
				return EXIT_USAGE;
			break;
		case 'd':
			if (parse_duration(optarg, &o->duration, err, errlen))
				return EXIT_USAGE;
			break;
		case 'e':
			if (!parse_event_list(optarg, &o->cap.events, err,
					      errlen))
				return EXIT_USAGE;
			events_given = true;
			break;
		case 'p':
			if (parse_id_list(optarg, false, o->cap.pids,
					  &o->cap.npids, err, errlen))
				return EXIT_USAGE;
			break;
		case 'C':
			if (ncpus <= 0 || ncpus > ABICAP_MAX_CPUS) {
				snprintf(err, errlen, "-C: cannot tell how many "
					 "CPUs this machine has");
				return EXIT_USAGE;
			}
			if (!parse_cpulist(optarg, o->cpuset, ncpus, err,
					   errlen))
				return EXIT_USAGE;
			o->cap.cpus = o->cpuset;
			o->cap.ncpus = ncpus;
			break;
		case 'b':
			/* a ring buffer's size is a u32 power of two: 2 GiB at most */
			if (!parse_long(optarg, 1, RINGBUF_MAX_MB, &mb)) {
				snprintf(err, errlen, "--buffer-size '%s': give "
					 "megabytes from 1 to %d", optarg,
					 RINGBUF_MAX_MB);
				return EXIT_USAGE;
			}
			o->cap.ringbuf_bytes = (size_t)mb << 20;
			break;
		case OPT_LONG('a'):
			if (parse_attach_mode(optarg, &o->cap.mode, err, errlen))
				return EXIT_USAGE;
			break;
		case OPT_LONG('g'):
			o->cgroup_path = optarg;
			break;
		case OPT_LONG('t'):
			if (parse_transport(optarg, &o->cap.transport, err,
					    errlen))
				return EXIT_USAGE;
			break;
		case OPT_LONG('D'):
			if (parse_drain_threads(optarg, ncpus, &o->cap.drain_threads,
						err, errlen))
				return EXIT_USAGE;
			break;
		case 'c':
			o->contract_path = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_LONG('f'):
			o->force = true;
			break;
		case OPT_LONG('P'):
			o->perfetto = optarg;
			break;
		case OPT_LONG('i'):
			if (parse_id_list(optarg, true, o->cap.tids,
					  &o->cap.ntids, err, errlen))
				return EXIT_USAGE;
			break;
		case OPT_LONG('n'):
			if (!*optarg || strlen(optarg) >= ABICAP_COMM_LEN) {
				snprintf(err, errlen, "--comm '%s': a task name is "
					 "1 to %d bytes (the kernel keeps no more)",
					 optarg, ABICAP_COMM_LEN - 1);
				return EXIT_USAGE;
			}
			snprintf(o->cap.comm, sizeof(o->cap.comm), "%s", optarg);
			break;
		case 'v':
			o->cap.verbose = true;
			break;
		case 'h':
			o->help = true;
			return EXIT_OK;
		default:
			return opt_error_msg(spec, argc, argv, ch, err, errlen);
		}
	}
	if (record && optind < argc) {
		/* everything after the options (or after --) is the command */
		o->command = argv + optind;
		if (o->cap.npids) {
			snprintf(err, errlen, "-p and a command exclude each other: "
				 "the command's processes are the filter");
			return EXIT_USAGE;
		}
	} else if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s' (see abicap "
			 "%s --help)", argv[optind], cmd);
		return EXIT_USAGE;
	}
	if (o->cap.drain_threads > 0 &&
	    (o->cap.transport == TRANSPORT_RINGBUF ||
	     o->cap.transport == TRANSPORT_PERFBUF)) {
		snprintf(err, errlen, "--drain-threads %d and --transport %s "
			 "exclude each other: drain threads drain per-CPU ring "
			 "buffers (use --transport percpu, or --drain-threads 0)",
			 o->cap.drain_threads, o->cap.transport == TRANSPORT_RINGBUF ?
			 "ringbuf" : "perfbuf");
		return EXIT_USAGE;
	}
	if (record && !o->output && !o->help) {
		snprintf(err, errlen, "record needs -o FILE, the capture file to "
			 "write");
		return EXIT_USAGE;
	}
	return pid_filter_events(&o->cap, events_given, err, errlen);
}

int capture_prepare(const struct cmd_spec *spec, int argc, char **argv,
		    struct trace_opts *o, struct contract **contract)
{
	char err[ERRMSG_LEN];
	int ret = capture_parse_args(spec, argc, argv, o, err, sizeof(err));

	*contract = NULL;
	if (ret) {
		ab_error("%s", err);
		return ret;
	}
	if (o->help) {
		cmd_help(spec, stdout);
		return EXIT_OK;
	}
	if (o->contract_path) {
		*contract = contract_load(o->contract_path, err, sizeof(err));
		if (!*contract) {
			ab_error("%s", err);
			return EXIT_USAGE;
		}
		o->cap.contract = *contract;
	}
	if (o->cgroup_path) {
		char root[4096];

		ret = resolve_cgroup_option(o->cgroup_path, root, sizeof(root),
					    &o->cap, err, sizeof(err));
		if (ret) {
			ab_error("%s", err);
			return ret;
		}
	}
	o->cap.drop_privileges = true;
	loop_install_signals();
	return EXIT_OK;
}
