/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The ping-pong workload: two threads, "abc_ping" and "abc_pong", optionally
 * pinned to one CPU, passing a byte back and forth over two pipes. Used by
 * the tests and by build/pingpong (tests/tools/pingpong.c).
 */
#ifndef ABICAP_WORKLOAD_H
#define ABICAP_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct pingpong {
	/* in */
	int rounds; /* stop after this many exchanges (0: no limit) */
	uint64_t deadline_ns; /* or at this CLOCK_MONOTONIC time (0: none) */
	int cpu; /* pin both threads here; < 0: not pinned */
	bool apart; /* with cpu >= 0: pong on cpu + 1, every wakeup crosses CPUs */
	int rate; /* at most this many exchanges a second (0: no limit) */
	void (*on_ready)(const struct pingpong *pp); /* both threads named */
	/* out */
	pid_t ping_tid;
	pid_t pong_tid;
	int done_rounds;
	/* both threads named and pinned, before the first byte / after the last */
	uint64_t start_ns;
	uint64_t end_ns;
};

/* Run to completion; 0 or -errno. */
int pingpong(struct pingpong *pp);

#endif
