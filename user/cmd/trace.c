// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "event/cgnames.h"
#include "event/cgroup.h"
#include "cmd/commands.h"
#include "abi/contract.h"
#include "lib/cpulist.h"
#include "event/events.h"
#include "live/runloop.h"
#include "live/stdout_sink.h"
#include "cmd/trace.h"
#include "lib/util.h"

const char trace_usage[] =
"Usage: abicap trace [OPTIONS]\n"
"Stream scheduler and power events from the running kernel to stdout.\n"
"\n"
"  -f, --format FMT       text (default: aligned columns, ms since start)\n"
"                         or json (one object per line)\n"
"  -d, --duration SECS    stop after SECS seconds (default: until Ctrl-C)\n"
"  -e, --events LIST      comma-separated events (default: all): sched_switch,\n"
"                         sched_wakeup,sched_wakeup_new,sched_waking,cpu_idle,\n"
"                         cpu_frequency\n"
"  -p, --pid PID[,PID]    only sched events involving these processes (as\n"
"                         prev/next, wakee or waker; threads included);\n"
"                         power events belong to no process and are left out\n"
"      --tid TID[,TID]    only sched events involving these threads\n"
"      --comm NAME        only sched events involving a task of this name\n"
"      --cgroup PATH      only sched events involving a task in this cgroup v2\n"
"                         subtree (/system.slice/x.service, or a path under\n"
"                         the cgroup2 mount); task filters combine: a task\n"
"                         must pass each\n"
"  -C, --cpu CPULIST      only events on these CPUs, e.g. 0,2-3\n"
"  -b, --buffer-size MB   ring buffer size, 1-2048 (default 16, rounded up to a\n"
"                         power of 2)\n"
"      --attach MODE      auto (default: tp_btf where the kernel has it),\n"
"                         tp_btf or raw_tp\n"
"      --transport T      auto (default: the ring buffer, unless the contract\n"
"                         finds its lock unsafe), ringbuf or perfbuf\n"
"  -c, --contract FILE    ABI contract to hold the kernel to before attaching\n"
"                         (default: the built-in one; see abicap check)\n"
"  -v, --verbose          print libbpf's log (verifier output) on stderr\n"
"  -h, --help             show this help\n"
"\n"
"Before loading anything, the kernel is checked against the contract for the\n"
"chosen events: a broken item stops the trace (exit 1), degraded ones are\n"
"warnings, and the verdicts pick the program variants.\n"
"Ends on Ctrl-C, SIGTERM (or SIGHUP, SIGUSR1, SIGUSR2, SIGALRM), the duration,\n"
"or when stdout is closed; then prints\n"
"a summary on stderr: events seen, received and dropped per event, and\n"
"drops per CPU. Drops are also reported while running.\n"
"Exit: 0 ok, 1 kernel cannot do it, 2 bad usage, 3 missing privilege,\n"
"4 runtime failure.\n";

enum { OPT_ATTACH = 256, OPT_TRANSPORT, OPT_FORCE, OPT_PERFETTO, OPT_TID,
       OPT_COMM, OPT_CGROUP };

static const struct option long_opts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "duration", required_argument, NULL, 'd' },
	{ "events", required_argument, NULL, 'e' },
	{ "pid", required_argument, NULL, 'p' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "buffer-size", required_argument, NULL, 'b' },
	{ "attach", required_argument, NULL, OPT_ATTACH },
	{ "contract", required_argument, NULL, 'c' },
	{ "transport", required_argument, NULL, OPT_TRANSPORT },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "perfetto", required_argument, NULL, OPT_PERFETTO },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
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

int trace_parse_args(int argc, char **argv, struct trace_opts *o, char *err,
		     size_t errlen)
{
	return capture_parse_args(argc, argv, false, o, err, errlen);
}

int capture_parse_args(int argc, char **argv, bool record,
		       struct trace_opts *o, char *err, size_t errlen)
{
	const char *cmd = record ? "record" : "trace";
	int ncpus = libbpf_num_possible_cpus();
	bool events_given = false;
	long mb;
	int ch;

	memset(o, 0, sizeof(*o));
	o->cap.events = EVENTS_ALL;
	optind = 0; /* full re-initialisation: parsers may run more than once */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, record ? "+:o:d:e:p:C:b:c:vh" :
				 ":f:d:e:p:C:b:c:vh", long_opts,
				 NULL)) != -1) {
		switch (ch) {
		case 'f':
			if (record)
				goto unknown;
			if (!strcmp(optarg, "text")) {
				o->fmt = FMT_TEXT;
			} else if (!strcmp(optarg, "json")) {
				o->fmt = FMT_JSON;
			} else {
				snprintf(err, errlen, "--format '%s': use text "
					 "or json", optarg);
				return EXIT_USAGE;
			}
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
		case OPT_ATTACH:
			if (parse_attach_mode(optarg, &o->cap.mode, err, errlen))
				return EXIT_USAGE;
			break;
		case OPT_CGROUP:
			o->cgroup_path = optarg;
			break;
		case OPT_TRANSPORT:
			if (!strcmp(optarg, "auto")) {
				o->cap.transport = TRANSPORT_AUTO;
			} else if (!strcmp(optarg, "ringbuf")) {
				o->cap.transport = TRANSPORT_RINGBUF;
			} else if (!strcmp(optarg, "perfbuf")) {
				o->cap.transport = TRANSPORT_PERFBUF;
			} else {
				snprintf(err, errlen, "--transport '%s': use auto, "
					 "ringbuf or perfbuf", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'c':
			o->contract_path = optarg;
			break;
		case 'o':
			if (!record)
				goto unknown;
			o->output = optarg;
			break;
		case OPT_FORCE:
			if (!record)
				goto unknown;
			o->force = true;
			break;
		case OPT_PERFETTO:
			if (!record)
				goto unknown;
			o->perfetto = optarg;
			break;
		case OPT_TID:
			if (parse_id_list(optarg, true, o->cap.tids,
					  &o->cap.ntids, err, errlen))
				return EXIT_USAGE;
			break;
		case OPT_COMM:
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
		case ':':
			snprintf(err, errlen, "option '%s' needs a value "
				 "(see abicap %s --help)", argv[optind - 1], cmd);
			return EXIT_USAGE;
		default:
unknown:
			/*
			 * A long option of the other command (trace's --format,
			 * record's --output): getopt found it in the shared
			 * table, and argv[optind - 1] may be its value.
			 */
			for (int i = 0; ch != '?' && long_opts[i].name; i++)
				if (long_opts[i].val == ch) {
					snprintf(err, errlen, "option '--%s' is not "
						 "one of %s's (see abicap %s "
						 "--help)", long_opts[i].name,
						 cmd, cmd);
					return EXIT_USAGE;
				}
			snprintf(err, errlen, "unknown option '%s' (see abicap "
				 "%s --help)", argv[optind - 1], cmd);
			return EXIT_USAGE;
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
	if (record && !o->output && !o->help) {
		snprintf(err, errlen, "record needs -o FILE, the capture file to "
			 "write");
		return EXIT_USAGE;
	}
	return pid_filter_events(&o->cap, events_given, err, errlen);
}

int capture_prepare(int argc, char **argv, bool record, struct trace_opts *o,
		    struct contract **contract)
{
	char err[ERRMSG_LEN];
	int ret = capture_parse_args(argc, argv, record, o, err, sizeof(err));

	*contract = NULL;
	if (ret) {
		ab_error("%s", err);
		return ret;
	}
	if (o->help) {
		fputs(record ? record_usage : trace_usage, stdout);
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

int do_trace(int argc, char **argv)
{
	char err[ERRMSG_LEN];
	struct trace_opts o;
	struct stdout_sink st = { 0 };
	struct loop_opts lo = { 0 };
	struct contract *contract = NULL;
	struct cgnames *names;
	struct capture *c;
	int ret;

	ret = capture_prepare(argc, argv, false, &o, &contract);
	if (ret || o.help)
		return ret;
	st.fmt = o.fmt;
	names = cgnames_live(err, sizeof(err));
	if (!names)
		ab_warn("cgroups shown as ids: %s", err);
	format_set_cgnames(names);
	c = capture_open(&o.cap, stdout_sink_record, &st, &ret, err, sizeof(err));
	contract_free(contract);
	if (!c) {
		ab_error("%s", err);
		cgnames_free(names);
		return ret;
	}
	/* no record is handed over before the first poll */
	st.t0_ns = capture_start_ns(c);
	fprintf(stderr, "abicap: tracing %d event%s; %s to stop\n",
		__builtin_popcount(o.cap.events),
		__builtin_popcount(o.cap.events) == 1 ? "" : "s",
		o.duration > 0 ? "Ctrl-C or the duration" : "Ctrl-C");
	if (o.fmt == FMT_TEXT)
		printf("%s\n", format_text_header());
	lo.duration = o.duration;
	lo.flush = stdout_sink_flush;
	lo.done = stdout_sink_done;
	lo.ctx = &st;
	ret = run_loop(c, &lo);
	if (ret) {
		capture_close(c);
		cgnames_free(names);
		return ret;
	}
	capture_stop(c);
	stdout_sink_flush(&st);
	print_summary(c, o.cap.events, capture_secs(c));
	if (st.out_closed)
		ab_warn("stdout was closed: %llu of %llu received events were "
			"written", (unsigned long long)st.written,
			(unsigned long long)capture_received_total(c));
	capture_close(c);
	format_set_cgnames(NULL);
	cgnames_free(names);
	if (st.out_errno) {
		ab_error("cannot write to stdout: %s", strerror(st.out_errno));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}
