// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * build/pingpong: a workload with known names for trying abicap by hand.
 *   build/pingpong [SECONDS [CPU [ROUNDS [RATE]]]]
 * Two threads, abc_ping and abc_pong, pinned to CPU (default 0), pass a byte
 * back and forth for SECONDS (default 5), or until ROUNDS round trips are
 * done if that comes first (a starved exchange still makes its rounds; 0:
 * no limit), at most RATE round trips a second (default 0: no limit). Two JSON lines on stdout: the pid
 * and the threads' tids when they start, the rounds and the time window
 * (CLOCK_MONOTONIC ns) when they end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/util.h"
#include "workload.h"

static void announce(const struct pingpong *pp)
{
	printf("{\"pid\":%d,\"abc_ping\":%d,\"abc_pong\":%d}\n", (int)getpid(),
	       (int)pp->ping_tid, (int)pp->pong_tid);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct pingpong pp = { .cpu = 0, .on_ready = announce };
	double secs = 5;
	long cpu, rounds = 0, rate = 0;
	int err;

	if (argc > 5 || (argc > 1 && !parse_seconds(argv[1], &secs)) ||
	    (argc > 2 && !parse_long(argv[2], -1, 4095, &cpu)) ||
	    (argc > 3 && !parse_long(argv[3], 0, INT32_MAX, &rounds)) ||
	    (argc > 4 && !parse_long(argv[4], 0, INT32_MAX, &rate))) {
		fprintf(stderr, "usage: pingpong [SECONDS [CPU [ROUNDS [RATE]]]] "
			"(CPU -1: not pinned; ROUNDS, RATE 0: no limit)\n");
		return 2;
	}
	if (argc > 2)
		pp.cpu = (int)cpu;
	pp.rounds = (int)rounds;
	pp.rate = (int)rate;
	pp.deadline_ns = mono_ns() + (uint64_t)(secs * 1e9);
	err = pingpong(&pp);
	if (err) {
		fprintf(stderr, "pingpong: %s\n", strerror(-err));
		return 1;
	}
	/* the exchange's window (CLOCK_MONOTONIC, as abicap's ts_ns) */
	printf("{\"rounds\":%d,\"start_ns\":%llu,\"end_ns\":%llu}\n",
	       pp.done_rounds, (unsigned long long)pp.start_ns,
	       (unsigned long long)pp.end_ns);
	fprintf(stderr, "pingpong: %d round trips in %.2f s\n", pp.done_rounds,
		(pp.end_ns - pp.start_ns) / 1e9);
	return 0;
}
