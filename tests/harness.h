/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Shared by the tests: skip rules, a known workload, record collection, processes. */
#ifndef ABICAP_TEST_HARNESS_H
#define ABICAP_TEST_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "live/capture.h"
#include "workload.h"

/*
 * Skips (docs/testing.md). A test that cannot run here says why with
 * test_skip() or a require_*() helper; one that ran but could not check a
 * part of what it checks says so with test_skip_part(). Either is counted
 * and shown after the suite's summary ("N skipped: ..."), every one with
 * its reason; under CI (CI set in the environment) either is a failure
 * instead: CI must run everything. The skips are appended to the file
 * $ABICAP_SKIP_LOG names (the Makefile's test targets set it and print it
 * after Criterion's summary, which does not count skips); when it is not
 * set, the test runner prints them itself when it ends. Never call
 * cr_skip_test() directly.
 */
void test_skip(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
void test_skip_part(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Real-kernel tests need root and kernel BTF. */
void require_kernel(void);
/* At least n possible CPUs. */
void require_cpus(int n);
/*
 * The running kernel has the csd_* tracepoints (6.3+), where record keeps
 * sched_wakeup's wakers without a sched_waking program (bpf/waker.bpf.h)
 */
bool kernel_has_wakelist_wakers(void);
/*
 * The wakeup programs read preempt_count by one plain load here (their
 * *_ts_pc variants): x86-64, the BPF JIT on, the kfunc bpf_rdonly_cast
 * (6.2+) in the kernel's BTF
 */
bool kernel_reads_pc_plainly(void);
/* path exists, else the test skips: "no WHAT (PATH)". */
void require_path(const char *path, const char *what);

/*
 * Tests wait for what they need to observe, not for a fixed time: a
 * deadline is only a hang guard, this generous (a busy machine is slow).
 */
#define HANG_GUARD_S 30
/*
 * The kernel's count of idle entries, all CPUs (the cpuidle states' usage
 * in sysfs), -1 where there is no cpuidle.
 */
long long idle_entries(void);

/* Run the ping-pong workload for `rounds` exchanges pinned to cpu (< 0: not pinned). */
void pingpong_run(struct pingpong *pp, int rounds, int cpu);
/* The record falls inside [start_ns, end_ns] of the exchange. */
bool pp_window(const struct pingpong *pp, const union abicap_rec *r);

/* Records collected by a capture callback. */
struct collected {
	union abicap_rec *v;
	size_t n;
	size_t cap;
};
int collect_cb(void *ctx, const union abicap_rec *r);
void collected_free(struct collected *c);

/* capture_open, asserting success (the error is in the failure message). */
struct capture *start_capture(const struct capture_opts *o,
			      struct collected *col);
/* Poll for ms milliseconds. */
void poll_for(struct capture *c, int ms);
/* Detach, drain, and assert that every event seen was received: no drops. */
void stop_and_check_lossless(struct capture *c);
/*
 * Stop c and check that every event the programs saw was received or
 * counted as dropped (a loaded machine may fill a buffer): the drops.
 */
uint64_t stop_and_check_accounted(struct capture *c);

/*
 * A scratch directory for one test (Criterion runs each test in its own
 * process): scratch_init() from a suite's .init, scratch_fini() from .fini,
 * scratch_path("x") for a file in it (one of 16 rotating buffers: the last
 * 16 results stay valid).
 */
void scratch_init(void);
void scratch_fini(void);
char *scratch_path(const char *name);

/* How many entries dir holds, '.' and '..' left out. */
int dir_entries(const char *dir);
/* A whole file into a malloc'd buffer. */
void *read_file(const char *path, size_t *len);

/*
 * A Perfetto trace decoded by protoc against tests/perfetto/abicap_subset.proto,
 * as text (malloc'd); asserts that protoc read it.
 */
char *protoc_decode(const char *trace);

/* The abicap binary under test ($ABICAP_BIN, default build/abicap). */
const char *abicap_bin(void);

/* A child process with stdout and stderr on pipes. */
struct child {
	pid_t pid;
	int out_fd;
	int err_fd;
};
void spawn(struct child *ch, char *const argv[]);
/* Read fd until EOF into a malloc'd NUL-terminated string. */
char *read_all(int fd);
/* Read stderr up to a line containing `needle` (assert it comes in time). */
void wait_for_stderr(struct child *ch, const char *needle, char *seen,
		     size_t seen_len);
/* Wait for exit (at most timeout_s seconds, then SIGKILL and fail); return the exit code. */
int wait_exit(struct child *ch, int timeout_s);

/*
 * The first of n (1 to 8) consecutive loopback ports nobody holds (TIME_WAIT
 * included), below the ephemeral range (32768 on), from a place this
 * process's pid picks: a test's ports are not those an earlier test's serve
 * left in TIME_WAIT.
 */
int free_ports(int n);
/* GET /metrics from serve on 127.0.0.1:port, asserting 200: the body (malloc'd). */
char *scrape_metrics(int port);
/* The value of the first sample whose line starts with prefix, -1 if none. */
double metric_sample(const char *text, const char *prefix);
/*
 * For a failure message, in place of a whole scrape: the lines of text
 * whose metric is prefix's (its name, up to '{' or ' '), at most 12, and
 * how many more; "(none)" if none. malloc'd.
 */
char *metric_lines(const char *text, const char *prefix);

/* A command run to its end (at most 60 s): exit code, stdout, stderr (malloc'd). */
struct run {
	int code;
	char *out;
	char *err;
};
struct run run_cmd(char *const argv[]);

#endif
