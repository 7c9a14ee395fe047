// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * build/capgen KIND N OUT [meta|nometa]: a crafted capture of N records for
 * the report and export cost checks (scripts/bench.sh, tests):
 *   same-ts    every record at the same time, two tasks switching
 *   many-pids  every switch between two tasks never seen before
 *   stride-pids  the same, task ids 1024 apart (hash tables keyed by the
 *              low bits of a product collide)
 *   reverse    times counting down, a second apart
 *   shuffled   times scattered over N seconds
 *   freqs      cpu_frequency records, every one a new frequency
 * "meta" (default) writes the metadata abicap record does (CPU count,
 * events: report and export stream); "nometa" an empty object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capfile.h"
#include "lib/util.h"

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	static const char meta[] = "{\"ncpus\":2,\"kernel\":\"6.1.0-capgen\","
		"\"events\":[\"sched_switch\",\"sched_wakeup\",\"sched_waking\"]}";
	char err[ERRMSG_LEN];
	union abicap_rec r;
	struct capw *w;
	uint64_t seed = 88172645463325252ull;
	long n;

	/* stride-pids: ids up to 1024 * (2 n + 2) stay below 2^31 */
	if ((argc != 4 && argc != 5) || !parse_long(argv[2], 1, 1000000, &n) ||
	    (argc == 5 && strcmp(argv[4], "meta") && strcmp(argv[4], "nometa"))) {
		fprintf(stderr, "usage: capgen same-ts|many-pids|stride-pids|"
			"reverse|shuffled|freqs N OUT [meta|nometa]\n");
		return 2;
	}
	w = capw_open(argv[3], true, argc == 5 && !strcmp(argv[4], "nometa") ?
		      "{}" : meta, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "capgen: %s\n", err);
		return 1;
	}
	for (long i = 0; i < n; i++) {
		uint64_t ts = 1000000000ull;
		int32_t a = 1000 + (int32_t)(i & 1), b = 1001 - (int32_t)(i & 1);

		if (!strcmp(argv[1], "many-pids")) {
			ts += (uint64_t)i * 1000;
			a = 100 + (int32_t)(2 * i);
			b = a + 1;
		} else if (!strcmp(argv[1], "stride-pids")) {
			ts += (uint64_t)i * 1000;
			a = 1024 * (int32_t)(2 * i + 1);
			b = a + 1024;
		} else if (!strcmp(argv[1], "reverse")) {
			ts += (uint64_t)(n - i) * 1000000000ull;
		} else if (!strcmp(argv[1], "shuffled")) {
			ts += rnd(&seed) % ((uint64_t)n * 1000000000ull);
		} else if (!strcmp(argv[1], "freqs")) {
			memset(&r, 0, sizeof(r));
			r.pw = (struct abicap_power){ .hdr = { ts + (uint64_t)i *
				1000, ABICAP_EV_CPU_FREQUENCY, sizeof(r.pw),
				(uint32_t)(i & 1) }, .state = 100000 + (uint32_t)i,
				.cpu_id = (uint32_t)(i & 1) };
			if (capw_add(w, &r, r.hdr.size)) {
				fprintf(stderr, "capgen: cannot write %s\n", argv[3]);
				return 1;
			}
			continue;
		} else if (strcmp(argv[1], "same-ts")) {
			fprintf(stderr, "capgen: unknown kind '%s'\n", argv[1]);
			return 2;
		}
		memset(&r, 0, sizeof(r));
		r.sw = (struct abicap_switch){ .hdr = { ts, ABICAP_EV_SCHED_SWITCH,
			sizeof(r.sw), (uint32_t)(i & 1) }, .prev_pid = a,
			.prev_tgid = a, .next_pid = b, .next_tgid = b,
			.prev_prio = 120, .next_prio = 120, .prev_state = 1 };
		snprintf(r.sw.prev_comm, sizeof(r.sw.prev_comm), "t%d", a);
		snprintf(r.sw.next_comm, sizeof(r.sw.next_comm), "t%d", b);
		if (capw_add(w, &r, r.hdr.size)) {
			fprintf(stderr, "capgen: cannot write %s\n", argv[3]);
			return 1;
		}
	}
	if (capw_close(w, "{}", err, sizeof(err))) {
		fprintf(stderr, "capgen: %s\n", err);
		return 1;
	}
	return 0;
}
