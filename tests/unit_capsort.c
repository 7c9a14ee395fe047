// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * capr_next_ordered: one total order (time, CPU, type, bytes) whatever the
 * order in the file, in memory or through the external merge (runs and
 * merge passes over a temporary file), every record once.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capfile.h"
#include "capfile/capsort_ext.h"
#include "harness.h"
#include "lib/util.h"

static char err[ERRMSG_LEN];

TestSuite(capsort, .init = scratch_init, .fini = scratch_fini);

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * n records with few distinct times, CPUs and types (ties everywhere,
 * told apart only by their bytes; some exact copies), in random order.
 */
static union abicap_rec *make(size_t n, uint64_t seed)
{
	union abicap_rec *v = calloc(n, sizeof(*v));

	cr_assert(v);
	for (size_t i = 0; i < n; i++) {
		uint64_t x = rnd(&seed);

		if (x & 1) {
			v[i].pw.hdr = (struct abicap_hdr){ .ts_ns = x % 50,
				.type = ABICAP_EV_CPU_IDLE, .size = sizeof(v[i].pw),
				.cpu = (x >> 8) % 3 };
			v[i].pw.state = (x >> 16) % 7;
		} else {
			v[i].sw.hdr = (struct abicap_hdr){ .ts_ns = x % 50,
				.type = ABICAP_EV_SCHED_SWITCH,
				.size = sizeof(v[i].sw), .cpu = (x >> 8) % 3 };
			v[i].sw.prev_pid = (x >> 16) % 11;
			snprintf(v[i].sw.prev_comm, sizeof(v[i].sw.prev_comm),
				 "t%d", (int)((x >> 24) % 5));
		}
	}
	return v;
}

static int cmp(const void *a, const void *b)
{
	return capr_rec_cmp(a, b);
}

static void check_with(size_t n, size_t budget, size_t fanin, uint64_t runs,
		       uint64_t passes, bool path, int sortedness, bool streamed)
{
	union abicap_rec *v = make(n, 88172645463325252ull + n), got;
	struct capr_order_opts o = { .budget = budget, .fanin = fanin,
		.path = path ? scratch_path("o.abicap") : NULL };
	const struct capr_order_stats *st;
	struct capr_ordered *s;
	struct capw *w;
	struct capr *r;
	size_t i = 0;
	int rc, c;

	if (sortedness) { /* in order but for neighbours swapped */
		qsort(v, n, sizeof(*v), cmp);
		for (size_t k = 0; k + sortedness < n; k += 2 * sortedness) {
			union abicap_rec t = v[k];

			v[k] = v[k + sortedness];
			v[k + sortedness] = t;
		}
	}
	w = capw_open(scratch_path("o.abicap"), true, "{}", err, sizeof(err));
	cr_assert(w, "%s", err);
	for (size_t k = 0; k < n; k++)
		cr_assert_eq(capw_add(w, &v[k], v[k].hdr.size), 0);
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
	qsort(v, n, sizeof(*v), cmp);
	r = capr_open(scratch_path("o.abicap"), err, sizeof(err));
	cr_assert(r, "%s", err);
	s = capr_ordered_open(r, &o, &rc, err, sizeof(err));
	cr_assert(s, "%s", err);
	cr_assert_eq(rc, 0);
	while ((c = capr_next_ordered(s, &got)) == 1) {
		cr_assert_lt(i, n, "more records than written");
		cr_assert_eq(capr_rec_cmp(&got, &v[i]), 0,
			     "record %zu out of the total order", i);
		i++;
	}
	cr_assert_eq(c, 0, "%s", capr_ordered_error(s));
	cr_assert_eq(i, n, "%zu of %zu records", i, n);
	st = capr_ordered_stats(s);
	cr_assert_eq(st->records, n);
	cr_assert_eq(st->runs, runs);
	cr_assert_eq(st->merge_passes, passes);
	cr_assert_leq(st->peak_records, budget ? budget : CAPR_ORDER_BUDGET);
	cr_assert_eq(st->ncpus, 3);
	cr_assert_gt(st->out_of_order, 0);
	cr_assert_eq(st->streamed, streamed);
	capr_ordered_close(s);
	capr_close(r);
	free(v);
}

static void check(size_t n, size_t budget, size_t fanin, uint64_t runs,
		  uint64_t passes)
{
	check_with(n, budget, fanin, runs, passes, false, 0, false);
}

Test(capsort, fits_in_memory)
{
	check(5000, 0, 0, 0, 0);
}

Test(capsort, one_merge_of_sorted_runs)
{
	check(5000, 1000, 0, 5, 0); /* 5 runs: merged as they are read */
}

Test(capsort, merge_passes_when_runs_outnumber_the_fanin)
{
	/* 97 runs of 103, 4 at a time: 25, 7, 2 runs, three passes */
	check(10000, 103, 4, 98, 3);
}

Test(capsort, a_run_ends_exactly_at_the_end)
{
	check(3000, 1000, 2, 3, 1);
}

/* Nearly in order (neighbours 50 apart swapped): the window of 1000 mends it. */
Test(capsort, a_nearly_sorted_capture_streams_through_the_window)
{
	check_with(10000, 1000, 0, 0, 0, true, 50, true);
}

/* Swapped 5000 apart: past the window, sorted from a second reading. */
Test(capsort, past_the_window_sorted_from_a_second_reading)
{
	check_with(10000, 1000, 0, 10, 0, true, 5000, false);
	check_with(10000, 1000, 0, 10, 0, true, 0, false); /* shuffled */
}
