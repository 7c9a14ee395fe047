// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The commands: each one's name, function, line in the command list and
 * options table. main() dispatches by it, and the tests take every
 * command from it, so that a new command cannot go untested.
 */
#include "cmd/commands.h"
#include "cmd/options.h"

const struct cmd abicap_cmds[] = {
	{ "trace", do_trace, "stream scheduler and power events to stdout",
	  &trace_spec },
	{ "record", do_record, "capture to a file, optionally of one command",
	  &record_spec },
	{ "report", do_report, "latency, off-CPU and idle report of a capture file",
	  &report_spec },
	{ "export", do_export, "write a capture as a Perfetto trace",
	  &export_spec },
	{ "script", do_script, "print a capture's events as text or JSON lines",
	  &script_spec },
	{ "timechart", do_timechart, "draw a capture as perf timechart does (one HTML page)",
	  &timechart_spec },
	{ "heatmap", do_heatmap, "draw a capture's run-queue latency over time (one HTML page)",
	  &heatmap_spec },
	{ "wakeups", do_wakeups, "who wakes the CPUs: idle exits per CPU and what they let run",
	  &wakeups_spec },
	{ "check", do_check, "check the ABI contract, or a BPF object, against kernels",
	  &check_spec },
	{ "diff", do_diff, "compare two kernels' events under the append-only rule",
	  &diff_spec },
	{ "serve", do_serve, "serve Prometheus metrics aggregated in the kernel, per cgroup",
	  &serve_spec },
	{ "contract", do_contract, "show the built-in contract, snapshot a kernel's, or derive one from an object",
	  &contract_spec },
	{ 0 },
};
