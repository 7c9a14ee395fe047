// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap trace: stream events to stdout. */
#include <stdio.h>
#include <string.h>
#include "abi/contract.h"
#include "cmd/capture_opts.h"
#include "cmd/commands.h"
#include "event/cgnames.h"
#include "event/format.h"
#include "lib/util.h"
#include "live/runloop.h"
#include "live/stdout_sink.h"

static const struct opt trace_own[] = {
	{ "format", 'f', "FMT", "text (default: aligned columns, ms since start) "
	  "or json (one object per line)" },
	{ "duration", 'd', "SECS", "stop after SECS seconds (default: until "
	  "Ctrl-C)" },
	{ 0 },
};

const struct cmd_spec trace_spec = {
	.name = "trace",
	.synopsis =
"Usage: abicap trace [OPTIONS]\n"
"Stream scheduler and power events from the running kernel to stdout.\n",
	.groups = { trace_own, opts_capture_filter, opts_capture_buffer,
		    opts_capture_kernel,
		    opts_verbose, opts_help },
	.epilog =
"Before loading anything, the kernel is checked against the contract for the\n"
"chosen events: a broken item stops the trace (exit 1), degraded ones are\n"
"warnings, and the verdicts pick the program variants.\n"
"Ends on Ctrl-C, SIGTERM (or SIGHUP, SIGUSR1, SIGUSR2, SIGALRM), the duration,\n"
"or when stdout is closed; then prints\n"
"a summary on stderr: events seen, received, dropped and missed (program\n"
"runs the kernel skipped) per event, and drops per CPU. Drops are also\n"
"reported while running.\n"
"Exit: 0 ok, 1 kernel cannot do it, 2 bad usage, 3 missing privilege,\n"
"4 runtime failure.\n",
};

int do_trace(int argc, char **argv)
{
	char err[ERRMSG_LEN];
	struct trace_opts o;
	struct stdout_sink st = { 0 };
	struct loop_opts lo = { 0 };
	struct contract *contract = NULL;
	struct cgnames *names;
	struct capture *c;
	int ret, e;

	ret = capture_prepare(&trace_spec, argc, argv, &o, &contract);
	if (ret || o.help)
		return ret;
	st.f.fmt = o.fmt;
	names = cgnames_live(err, sizeof(err));
	if (!names)
		ab_warn("cgroups shown as ids: %s", err);
	st.f.names = names;
	c = capture_open(&o.cap, stdout_sink_record, &st, &ret, err, sizeof(err));
	contract_free(contract);
	if (!c) {
		ab_error("%s", err);
		cgnames_free(names);
		return ret;
	}
	/* no record is handed over before the first poll */
	st.f.t0_ns = capture_start_ns(c);
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
	if ((e = capture_stop(c))) {
		ab_error("reading the ring buffer's last records failed: %s",
			 strerror(-e));
		ret = EXIT_RUNTIME;
	}
	stdout_sink_flush(&st);
	print_summary(c, o.cap.events, capture_secs(c));
	if (format_cgroup_note(&st.f))
		fprintf(stderr, "  %s\n", format_cgroup_note(&st.f));
	if (st.out_closed)
		ab_warn("stdout was closed: %llu of %llu received events were "
			"written", (unsigned long long)st.written,
			(unsigned long long)capture_received_total(c));
	capture_close(c);
	cgnames_free(names);
	if (st.out_errno) {
		ab_error("cannot write to stdout: %s", strerror(st.out_errno));
		return EXIT_RUNTIME;
	}
	return ret;
}
