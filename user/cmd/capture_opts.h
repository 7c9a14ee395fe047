/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The capture options of trace and record, and those serve shares. */
#ifndef ABICAP_CAPTURE_OPTS_H
#define ABICAP_CAPTURE_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include "live/capture.h"
#include "event/format.h"
#include "cmd/options.h"

struct trace_opts {
	enum out_format fmt;
	double duration; /* seconds; 0: until Ctrl-C */
	struct capture_opts cap;
	uint8_t cpuset[ABICAP_MAX_CPUS];
	const char *contract_path; /* NULL: the built-in contract */
	const char *cgroup_path; /* --cgroup, resolved by capture_prepare() */
	/* record: */
	const char *output;
	const char *perfetto; /* also write this Perfetto trace */
	bool force;
	char **command; /* after --, NULL-terminated (argv's tail); NULL: none */
	bool help;
};

/* trace's and record's option groups (options.h) */
extern const struct opt opts_capture_filter[];
extern const struct opt opts_capture_buffer[];
extern const struct opt opts_capture_kernel[]; /* serve's too */

/*
 * The cgroup v2 mount into root, and --cgroup PATH (NULL: none) into
 * cap's filter. EXIT_OK, EXIT_KERNEL (no cgroup2 mount) or EXIT_USAGE (no
 * such cgroup), with one line in err.
 */
int resolve_cgroup_option(const char *path, char *root, size_t rootlen,
			  struct capture_opts *cap, char *err, size_t errlen);

/* --duration SECS: 0, or -1 with err. */
int parse_duration(const char *arg, double *secs, char *err, size_t errlen);

/* --drain-threads auto|0|N (N at most ncpus): 0, or -1 with err. */
int parse_drain_threads(const char *arg, int ncpus, int *n, char *err,
			size_t errlen);

/* --attach auto|tp_btf|raw_tp: 0, or -1 with err. */
int parse_attach_mode(const char *arg, enum attach_mode *mode, char *err,
		      size_t errlen);

/*
 * trace's or record's options (spec: the command; record's takes -o, a
 * command after the options). EXIT_OK (o->help may be set) or EXIT_USAGE
 * with one line in err.
 */
int capture_parse_args(const struct cmd_spec *spec, int argc, char **argv,
		       struct trace_opts *o, char *err, size_t errlen);

/*
 * trace and record start alike: parse, answer --help (EXIT_OK with o->help
 * set), load --contract into *contract (the caller frees it), install the
 * signal handlers. An exit code other than EXIT_OK means stop (reported).
 */
struct contract;
int capture_prepare(const struct cmd_spec *spec, int argc, char **argv,
		    struct trace_opts *o, struct contract **contract);

#endif
