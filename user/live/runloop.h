/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The consume loop and summary shared by trace and record. */
#ifndef ABICAP_RUNLOOP_H
#define ABICAP_RUNLOOP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "live/capture.h"

struct loop_opts {
	double duration; /* seconds from capture_start_ns(); 0: no limit */
	pid_t child; /* stop when this child exits (0: none) */
	void (*flush)(void *ctx); /* after each drain */
	bool (*done)(void *ctx); /* the sink wants to stop (NULL: never) */
	void *ctx;
	int child_status; /* out: the child's wait status */
	bool child_exited; /* out */
};

/* SIGINT/SIGTERM end the loop (restartable, so writes are not cut); SIGPIPE ignored. */
void loop_install_signals(void);
/* The signal that stopped the loop, 0 if none. */
int loop_stop_signal(void);

/*
 * Poll and drain until a signal, the duration, the child's exit or the
 * sink says done; drops are reported once a second. EXIT_OK, or
 * EXIT_RUNTIME if reading the buffer failed (reported).
 */
int run_loop(struct capture *c, struct loop_opts *o);

/*
 * Warnings for what the programs could not do (followed processes left out,
 * wakers lost, aggregation updates lost); with summary, also the processes
 * followed.
 */
void warn_aux(struct capture *c, bool summary);

/*
 * A warning for the program runs the kernel skipped (recursion_misses),
 * naming the programs; nothing when there are none.
 */
void warn_misses(const struct capture_misses *m);
/* The count for a summary line: the total, or why it is not known. */
void misses_text(const struct capture_misses *m, char *buf, size_t len);

/*
 * The summary on stderr: seen, received, dropped and missed (program runs
 * the kernel skipped) per event, drops per CPU.
 */
void print_summary(struct capture *c, unsigned int mask, double secs);

uint64_t capture_received_total(const struct capture *c);

#endif
