/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Records into a capture file as they arrive: each cgroup named before the
 * chunk that uses it, losses noted as drop windows, the first write error kept.
 */
#ifndef ABICAP_CAPSINK_H
#define ABICAP_CAPSINK_H

#include <stdbool.h>
#include <stdint.h>
#include "capfile/capfile.h"
#include "event/cgnames.h"

struct capsink {
	struct capw *w;
	int werr; /* first write error, -errno */
	struct cgnames *names; /* NULL: no cgroup v2 hierarchy to name from */
	uint64_t last_cg; /* the last id looked at: most records repeat it */
	uint64_t drops; /* records lost, as of the last look */
	uint64_t *cpu_drops; /* of them, on each CPU (capsink_drops' n) */
	int ncpus;
	uint64_t looked_ns; /* when that was */
	uint64_t flushed_ns; /* when the records last went out as a chunk */
	/* the cgroups named in the file, in order of first use (record's cpu.stat) */
	uint64_t *named;
	size_t nnamed, named_cap;
};

/* Free what the sink holds (not the writer or the names). */
void capsink_free(struct capsink *st);

/* A record (ctx: the capsink) into the file: 0 (an error goes into werr). */
int capsink_record(void *ctx, const union abicap_rec *r);

/* Whether a write failed: nothing more goes in. */
bool capsink_done(const struct capsink *st);

/*
 * After each drain: records lost since the last look go into the file as a
 * drop window (capfile.h) at once, so report can leave out what spans it.
 */
/*
 * d: the records lost in all so far, as of now (ns, CLOCK_MONOTONIC);
 * per_cpu[0 .. n): of them, on each CPU (NULL or n < 0: not known): a
 * window per CPU whose count grew, and one of any CPU for the rest.
 */
void capsink_drops(struct capsink *st, uint64_t d, const uint64_t *per_cpu,
		   int n, uint64_t now);

/*
 * After each drain: the records added since the last chunk go out as one
 * when CAPSINK_FLUSH_NS have passed, so a recorder killed loses at most
 * about that much however quiet the machine (a full chunk goes out at once).
 */
#define CAPSINK_FLUSH_NS 1000000000ull
void capsink_flush_due(struct capsink *st, uint64_t now);

#endif
