// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap serve: a Prometheus endpoint fed by in-kernel aggregation. The BPF
 * programs keep per-cgroup histograms and counters in maps (no record
 * streams to user space); each scrape reads the maps.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "live/capture.h"
#include "event/cgnames.h"
#include "event/cgroup.h"
#include "cmd/commands.h"
#include "cmd/options.h"
#include "abi/contract.h"
#include "live/httpd.h"
#include "live/metrics.h"
#include "live/runloop.h"
#include "cmd/capture_opts.h"
#include "lib/util.h"

enum { OPT_CGROUP = 256, OPT_MAX_CGROUPS, OPT_ACCOUNTING };

static const struct opt serve_own[] = {
	{ "listen", 'l', "ADDR:PORT",
	  "where to listen (default 127.0.0.1:9464, loopback only); e.g. "
	  "0.0.0.0:9464 or [::]:9464 for every interface, which is never "
	  "the default" },
	{ "cgroup", OPT_CGROUP, "PATH",
	  "only tasks in this cgroup v2 subtree, as a path in the hierarchy "
	  "(/system.slice) or under its mount" },
	{ "max-cgroups", OPT_MAX_CGROUPS, "N",
	  "cgroups kept in the kernel (default 1024); removed ones are "
	  "deleted at each scrape and, between scrapes, when three quarters "
	  "full or events are lost; at nine tenths full the live ones idle "
	  "longest are evicted down to three quarters, their counts kept in "
	  "cgroup=\"(evicted)\"" },
	{ "duration", 'd', "SECS",
	  "stop after SECS seconds (default: until Ctrl-C)" },
	{ "accounting", OPT_ACCOUNTING, "SRC",
	  "what waits and on-CPU time are measured from: kernel (the "
	  "scheduler's own sched_info and run queue clocks, read at each "
	  "switch: no wakeup program runs; Linux 6.0+ with tp_btf), events "
	  "(sched_wakeup programs and the BPF clock), or auto (default: "
	  "kernel where it holds, else events)" },
	{ 0 },
};

const struct cmd_spec serve_spec = {
	.name = "serve",
	.synopsis =
"Usage: abicap serve [OPTIONS]\n"
"Serve Prometheus metrics of the running kernel's scheduler, aggregated in\n"
"the kernel (per-cgroup histograms in BPF maps: no per-event streaming).\n",
	.groups = { serve_own, opts_capture_kernel, opts_verbose, opts_help },
	.epilog =
"GET /metrics:\n"
"  abicap_runqueue_latency_seconds{cgroup,container,pod,qos}  histogram\n"
"  abicap_context_switches_total{cgroup,...,kind=voluntary|involuntary}\n"
"  abicap_cpu_seconds_total{cgroup,...}        on-CPU time\n"
"  abicap_cpu_runs_unseen_total{cgroup,...}    runs whose switch-in was\n"
"                                              hidden (accounting events)\n"
"  abicap_cgroup_throttled_seconds_total{cgroup,...}, and _periods_total,\n"
"  abicap_cgroup_periods_total{cgroup,...}     CPU quota throttling: the\n"
"                                              cgroup's cpu.stat at scrape\n"
"  abicap_cpu_idle_seconds_total{cpu,state}    idle residency\n"
"  abicap_cpu_frequency_hertz{cpu}             last cpu_frequency\n"
"  abicap_abi_contract_status{event,item}      0 ok, 1 degraded, 2 broken\n"
"  abicap_events_total{event}, abicap_events_lost_total{event}\n"
"  abicap_cgroups, abicap_cgroups_max, abicap_cgroups_pruned_total\n"
"  abicap_updates_lost_total{reason}           why events were lost\n"
"  abicap_bpf_recursion_misses_total{event}    program runs the kernel skipped\n"
"  abicap_http_connections_closed_total{reason=evicted|deadline}\n"
"Counts of removed cgroups no scrape showed are in cgroup=\"(removed)\".\n"
"Only GET and HEAD of / and /metrics are answered; a request with a body,\n"
"two different Content-Length headers, a NUL byte in its target, headers\n"
"over 16 KiB or another method gets an HTTP error, and the exporter keeps\n"
"serving. Keep-alive and pipelining work. Each request must be done\n"
"within 10 s of its connection or of the previous answer; a connection over\n"
"16 from one address or 64 in all closes the oldest one, so slow clients\n"
"cannot lock a scraper out. Label values are UTF-8: a byte that is not\n"
"becomes the text \\xHH, and such a cgroup path ends in '/'.\n"
"Exit: 0 ok, 1 kernel cannot do it, 2 bad usage, 3 missing privilege,\n"
"4 runtime failure (e.g. the port is in use).\n",
};

struct serve_opts {
	const char *listen;
	const char *cgroup;
	const char *contract_path;
	double duration;
	struct capture_opts cap;
};

static int parse_args(int argc, char **argv, struct serve_opts *o,
		      bool *help, char *err, size_t errlen)
{
	struct opt_parser p;
	long n;
	int ch;

	memset(o, 0, sizeof(*o));
	err[0] = 0;
	o->listen = "127.0.0.1:9464";
	opt_parser_init(&p, &serve_spec);
	while ((ch = opt_next(&p, argc, argv)) != -1) {
		switch (ch) {
		case 'l':
			o->listen = optarg;
			break;
		case OPT_CGROUP:
			o->cgroup = optarg;
			break;
		case OPT_MAX_CGROUPS:
			if (!parse_long(optarg, 16, 1 << 20, &n)) {
				snprintf(err, errlen, "--max-cgroups '%s': give a "
					 "number from 16 to 1048576", optarg);
				return EXIT_USAGE;
			}
			o->cap.max_cgroups = n;
			break;
		case 'd':
			if (parse_duration(optarg, &o->duration, err, errlen))
				return EXIT_USAGE;
			break;
		case OPT_ACCOUNTING:
			if (!strcmp(optarg, "auto")) {
				o->cap.agg_source = AGG_AUTO;
			} else if (!strcmp(optarg, "kernel")) {
				o->cap.agg_source = AGG_KERNEL;
			} else if (!strcmp(optarg, "events")) {
				o->cap.agg_source = AGG_EVENTS;
			} else {
				snprintf(err, errlen, "--accounting '%s': give "
					 "auto, kernel or events", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_LONG('a'):
			if (parse_attach_mode(optarg, &o->cap.mode, err, errlen))
				return EXIT_USAGE;
			break;
		case 'c':
			o->contract_path = optarg;
			break;
		case 'v':
			o->cap.verbose = true;
			break;
		case 'h':
			*help = true;
			return EXIT_OK;
		default:
			/* trace's and record's: name why it is not serve's */
			if (ch == '?' && optind > 0 && optind - 1 < argc &&
			    !strncmp(argv[optind - 1], "--drain-threads", 15)) {
				snprintf(err, errlen, "unknown option "
					 "'--drain-threads' for serve: it streams "
					 "no records (it counts in the kernel), "
					 "so there is nothing to drain; the "
					 "option is trace's and record's");
				return EXIT_USAGE;
			}
			return opt_error_msg(&serve_spec, argc, argv, ch, err,
					     errlen);
		}
	}
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s' (see abicap serve "
			 "--help)", argv[optind]);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/*
 * The options, --cgroup, --contract and the listening socket (*fd): -1 to
 * go on, or the exit code (--help, or an error, reported).
 */
static int serve_setup(int argc, char **argv, struct serve_opts *o,
		       struct listen_addr *la, char *root, size_t rootlen,
		       struct contract **contract, int *fd)
{
	char err[ERRMSG_LEN] = "";
	bool help = false;
	int ret;

	ret = parse_args(argc, argv, o, &help, err, sizeof(err));
	if (!ret && help) {
		cmd_help(&serve_spec, stdout);
		return EXIT_OK;
	}
	if (!ret && httpd_parse_listen(o->listen, la, err, sizeof(err)))
		ret = EXIT_USAGE;
	if (!ret)
		ret = resolve_cgroup_option(o->cgroup, root, rootlen, &o->cap,
					    err, sizeof(err));
	if (!ret && o->contract_path) {
		*contract = load_contract_arg(o->contract_path, err, sizeof(err));
		if (!*contract)
			ret = EXIT_USAGE;
		o->cap.contract = *contract;
	}
	if (!ret) {
		*fd = httpd_listen(la, err, sizeof(err));
		if (*fd < 0)
			ret = EXIT_RUNTIME;
	}
	if (!ret)
		return -1;
	if (err[0])
		ab_error("%s", err);
	contract_free(*contract);
	*contract = NULL;
	return ret;
}

/* Answer scrapes until a signal or the duration; say once if --cgroup goes. */
static void serve_until_stopped(struct httpd *srv, struct metrics_ctx *m,
				const struct serve_opts *o, const char *root,
				uint64_t t0)
{
	char err[ERRMSG_LEN];
	bool warned_gone = false;
	unsigned long ticks = 0;

	while (!loop_stop_signal() &&
	       (o->duration <= 0 || (mono_ns() - t0) / 1e9 < o->duration)) {
		uint64_t id = 0;
		unsigned int level;

		httpd_run(srv, 100);
		/* removed cgroups must not keep new ones out of the map */
		metrics_maintain(m);
		/* once a second: is the filtered cgroup still there? */
		if (o->cgroup && !warned_gone && !(++ticks % 10) &&
		    (cgroup_resolve(root, o->cgroup, &id, &level, err,
				    sizeof(err)) || id != o->cap.cgroup_id)) {
			ab_warn("--cgroup %s was removed: no task can match it "
				"any more (metrics keep their last values)",
				o->cgroup);
			warned_gone = true;
		}
	}
}

/* The summary line at exit, and the warnings of what went unseen. */
static void serve_summary(struct capture *c, const struct httpd *srv,
			  uint64_t t0)
{
	struct abicap_counter cnt[ABICAP_EV_COUNT];
	struct capture_misses ms;
	uint64_t seen = 0, lost = 0;
	char missed[64];
	bool have_ms = !capture_misses(c, &ms);

	if (have_ms)
		misses_text(&ms, missed, sizeof(missed));
	else
		snprintf(missed, sizeof(missed), "unknown");
	if (!capture_counters(c, -1, cnt))
		for (int e = 0; e < ABICAP_EV_COUNT; e++) {
			seen += cnt[e].seen;
			lost += cnt[e].dropped;
		}
	fprintf(stderr, "abicap: served %llu scrapes (%llu requests refused, "
		"%llu connections evicted, %llu past the %d s deadline) in %.1f s;"
		" %llu events, %llu lost, %s missed\n",
		(unsigned long long)srv->scrapes, (unsigned long long)srv->refused,
		(unsigned long long)srv->guard.evicted,
		(unsigned long long)srv->guard.expired, HTTP_DEADLINE_S,
		(mono_ns() - t0) / 1e9, (unsigned long long)seen,
		(unsigned long long)lost, missed);
	warn_aux(c, false);
	if (have_ms)
		warn_misses(&ms);
}

int do_serve(int argc, char **argv)
{
	char err[ERRMSG_LEN], root[4096];
	struct serve_opts o;
	struct listen_addr la;
	struct metrics_ctx m = { 0 };
	struct httpd srv;
	struct contract *contract = NULL;
	struct capture *c;
	uint64_t t0;
	int ret, fd = -1;

	ret = serve_setup(argc, argv, &o, &la, root, sizeof(root), &contract,
			  &fd);
	if (ret >= 0)
		return ret;
	o.cap.events = (1u << ABICAP_EV_SCHED_SWITCH) |
		       (1u << ABICAP_EV_SCHED_WAKEUP) |
		       (1u << ABICAP_EV_SCHED_WAKEUP_NEW) |
		       (1u << ABICAP_EV_CPU_IDLE) |
		       (1u << ABICAP_EV_CPU_FREQUENCY);
	o.cap.aggregate = true;
	o.cap.drop_privileges = true;
	loop_install_signals();
	c = capture_open(&o.cap, NULL, NULL, &ret, err, sizeof(err));
	contract_free(contract);
	if (!c) {
		ab_error("%s", err);
		close(fd);
		return ret;
	}
	m.cap = c;
	m.cgroup_root = root;
	m.max_cgroups = o.cap.max_cgroups ? o.cap.max_cgroups :
					    ABICAP_MAX_CGROUPS_DEFAULT;
	m.removed_series = true;
	if (metrics_open_slots(&m, err, sizeof(err)))
		ab_warn("%s", err);
	m.names = cgnames_live(err, sizeof(err));
	if (!m.names) {
		ab_error("%s", err);
		capture_close(c);
		close(fd);
		return EXIT_KERNEL;
	}
	if (httpd_start(&srv, fd, &m)) {
		ab_error("cannot start the HTTP server on %s", la.text);
		cgnames_free(m.names);
		capture_close(c);
		close(fd);
		return EXIT_RUNTIME;
	}
	if (!la.loopback)
		ab_warn("listening on %s: the metrics are reachable from other "
			"hosts", la.text);
	fprintf(stderr, "abicap: serving http://%s/metrics%s (accounting: %s); "
		"Ctrl-C to stop\n", la.text,
		o.cgroup ? " for the cgroup subtree given" : "",
		capture_kernel_accounting(c) ? "kernel" : "events");
	t0 = mono_ns();
	serve_until_stopped(&srv, &m, &o, root, t0);
	httpd_stop(&srv);
	serve_summary(c, &srv, t0);
	metrics_fini(&m);
	cgnames_free(m.names);
	capture_close(c);
	return EXIT_OK;
}

