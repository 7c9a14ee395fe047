// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The per-CPU transport in user space: the k-way merge of per-CPU record
 * streams (user/live/merge.h), where what comes out is every record that
 * went in, in time order, and a record held back only while an older one
 * could still come; and the buffer budget's split across CPUs.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "live/capture.h"
#include "live/merge.h"

struct seen {
	uint64_t ts[4096];
	int cpu[4096];
	size_t n;
	size_t stop_after; /* 0: never stop */
};

static int take(void *ctx, const union abicap_rec *r)
{
	struct seen *s = ctx;

	cr_assert_lt(s->n, 4096);
	s->ts[s->n] = r->hdr.ts_ns;
	s->cpu[s->n++] = r->hdr.cpu;
	return s->stop_after && s->n == s->stop_after;
}

static void push(struct recmerge *m, int cpu, uint64_t ts)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.hdr.ts_ns = ts;
	r.hdr.cpu = cpu;
	r.hdr.type = ABICAP_EV_CPU_IDLE;
	r.hdr.size = sizeof(r.pw);
	cr_assert_eq(recmerge_push(m, cpu, &r), 0);
}

Test(merge, interleaves_cpus_by_time_up_to_the_bound)
{
	struct seen s = { 0 };
	struct recmerge *m = recmerge_new(2, 10, take, &s);

	cr_assert(m);
	/* CPU 0 drained first: its records all come before CPU 1's in the queue */
	push(m, 0, 100);
	push(m, 0, 120);
	push(m, 0, 140);
	push(m, 1, 110);
	push(m, 1, 130);
	/* drained at 125: CPU 0 could still send 130 (140 - 10), CPU 1 115 */
	cr_assert_eq(recmerge_emit(m, 125), 0);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(s.ts[0], 100);
	cr_assert_eq(s.ts[1], 110);
	cr_assert_eq(recmerge_queued(m), 3);
	cr_assert_eq(recmerge_emit(m, UINT64_MAX), 0);
	cr_assert_eq(s.n, 5);
	for (size_t i = 1; i < s.n; i++)
		cr_assert_lt(s.ts[i - 1], s.ts[i]);
	cr_assert_eq(recmerge_late(m), 0);
	recmerge_free(m);
}

Test(merge, an_idle_cpu_holds_nothing_back_past_the_lag)
{
	struct seen s = { 0 };
	struct recmerge *m = recmerge_new(4, 10, take, &s);

	cr_assert(m);
	push(m, 2, 100);
	push(m, 2, 200);
	/* CPUs 0, 1 and 3 sent nothing: drained at 205, all older than 195 go */
	cr_assert_eq(recmerge_emit(m, 205), 0);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(recmerge_emit(m, 211), 0);
	cr_assert_eq(s.n, 2);
	recmerge_free(m);
}

Test(merge, a_nested_program_out_of_order_on_its_cpu_is_put_in_place)
{
	struct seen s = { 0 };
	struct recmerge *m = recmerge_new(1, 0, take, &s);

	cr_assert(m);
	push(m, 0, 100);
	push(m, 0, 300);
	push(m, 0, 200); /* read the clock before 300's program interrupted it */
	cr_assert_eq(recmerge_emit(m, UINT64_MAX), 0);
	cr_assert_eq(s.n, 3);
	cr_assert_eq(s.ts[1], 200);
	cr_assert_eq(s.ts[2], 300);
	cr_assert_eq(recmerge_late(m), 0);
	recmerge_free(m);
}

Test(merge, a_record_later_than_the_lag_is_handed_on_and_counted)
{
	struct seen s = { 0 };
	struct recmerge *m = recmerge_new(2, 10, take, &s);

	cr_assert(m);
	push(m, 0, 100);
	push(m, 0, 200);
	cr_assert_eq(recmerge_emit(m, 300), 0);
	cr_assert_eq(s.n, 2);
	push(m, 1, 150); /* held past the lag: older than what went out */
	cr_assert_eq(recmerge_emit(m, 400), 0);
	cr_assert_eq(s.n, 3);
	cr_assert_eq(s.ts[2], 150);
	cr_assert_eq(recmerge_late(m), 1);
	recmerge_free(m);
}

Test(merge, a_stopping_callback_keeps_the_rest_queued)
{
	struct seen s = { .stop_after = 2 };
	struct recmerge *m = recmerge_new(2, 0, take, &s);

	cr_assert(m);
	for (uint64_t t = 1; t <= 6; t++)
		push(m, t % 2, t);
	cr_assert_neq(recmerge_emit(m, UINT64_MAX), 0);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(recmerge_queued(m), 4);
	s.stop_after = 0;
	cr_assert_eq(recmerge_emit(m, UINT64_MAX), 0);
	cr_assert_eq(s.n, 6);
	for (size_t i = 0; i < s.n; i++)
		cr_assert_eq(s.ts[i], i + 1);
	recmerge_free(m);
}

/* Many CPUs, queues growing and wrapping: all out, in order, none late. */
Test(merge, many_cpus_many_drains_come_out_whole_and_sorted)
{
	static struct seen s;
	struct recmerge *m = recmerge_new(16, 50, take, &s);
	uint64_t next[16] = { 0 }, now = 0;
	size_t in = 0;

	cr_assert(m);
	srand(7);
	memset(&s, 0, sizeof(s));
	for (int round = 0; round < 40; round++) {
		/* each CPU sends what it made up to now, in its own order */
		now += 100;
		for (int cpu = 0; cpu < 16; cpu++) {
			while (next[cpu] + 40 < now && in < 4000) {
				push(m, cpu, next[cpu] + 1);
				next[cpu] += 1 + rand() % 23;
				in++;
			}
		}
		cr_assert_eq(recmerge_emit(m, now), 0);
	}
	cr_assert_eq(recmerge_emit(m, UINT64_MAX), 0);
	cr_assert_eq(s.n, in);
	for (size_t i = 1; i < s.n; i++)
		cr_assert(s.ts[i - 1] < s.ts[i] ||
			  (s.ts[i - 1] == s.ts[i] && s.cpu[i - 1] <= s.cpu[i]),
			  "record %zu out of order", i);
	cr_assert_eq(recmerge_late(m), 0);
	recmerge_free(m);
}

/* -b is the budget of all CPUs: each CPU's ring is a power of two within its share. */
Test(transport, the_budget_is_split_into_powers_of_two_per_cpu)
{
	char err[256] = "";
	size_t each;

	cr_assert_eq(capture_ring_share(16 << 20, 2, 4096, &each, err,
					sizeof(err)), 0);
	cr_assert_eq(each, 8 << 20);
	cr_assert_eq(capture_ring_share(16 << 20, 3, 4096, &each, err,
					sizeof(err)), 0);
	cr_assert_eq(each, 4 << 20, "16 MiB over 3 CPUs: %zu each", each);
	cr_assert_eq(capture_ring_share(1 << 20, 256, 4096, &each, err,
					sizeof(err)), 0);
	cr_assert_eq(each, 4096);
	cr_assert_eq(capture_budget(0, 2), 16u << 20);
	cr_assert_eq(capture_budget(0, 192), 192u << 20, "1 MiB per CPU");
	cr_assert_eq(capture_budget(3 << 20, 192), 3u << 20);
}

Test(transport, a_budget_below_a_page_per_cpu_is_refused_with_the_fix)
{
	char err[256] = "";
	size_t each = 1;

	cr_assert_eq(capture_ring_share(1 << 20, 512, 4096, &each, err,
					sizeof(err)), -1);
	cr_assert_eq(each, 0);
	cr_assert_str_eq(err, "--buffer-size: 1024 KiB cannot give each of the "
			 "512 CPUs a ring buffer of a page (4 KiB): give at "
			 "least 2 MB, or --transport ringbuf (one shared)");
}
