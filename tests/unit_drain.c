// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Drain threads in user space (user/live/drain.h): the queue from a drain
 * thread to the merging thread (every record once, each source's in order,
 * the producer waiting, never dropping, when a queue is full), the auto
 * rule as a pure function, and the split of the rings into groups.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "live/drain.h"

#define NSRC 3

struct prod {
	struct drainq *q;
	uint64_t per_src; /* records of each source, ts 1, 2, ... */
	bool done; /* atomic */
};

/* Round-robin over the sources, flushing now and then as a pass would. */
static void *producer(void *arg)
{
	struct prod *p = arg;
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = ABICAP_EV_CPU_IDLE;
	r.hdr.size = sizeof(r.pw);
	for (uint64_t i = 1; i <= p->per_src; i++) {
		for (int s = 0; s < NSRC; s++) {
			r.hdr.ts_ns = i;
			r.hdr.cpu = s;
			drainq_push(p->q, s, &r);
		}
		if (i % 1000 == 0)
			drainq_flush(p->q);
	}
	drainq_flush(p->q);
	__atomic_store_n(&p->done, true, __ATOMIC_RELEASE);
	return NULL;
}

struct got {
	uint64_t next[NSRC]; /* the ts expected next per source */
	uint64_t n;
	uint64_t bad_order, bad_src;
	int stop_every; /* non-zero: fn returns 1 every this many records */
};

static int take(void *ctx, int src, const union abicap_rec *r)
{
	struct got *g = ctx;

	if (src < 0 || src >= NSRC || r->hdr.cpu != (uint32_t)src) {
		g->bad_src++;
		return 0;
	}
	if (r->hdr.ts_ns != g->next[src])
		g->bad_order++;
	g->next[src] = r->hdr.ts_ns + 1;
	g->n++;
	return g->stop_every && g->n % g->stop_every == 0;
}

/* The consumer takes until the producer is done and the queue is empty. */
static void run(size_t max_per_src, uint64_t per_src, int slow_takes,
		int stop_every, uint64_t *waits)
{
	struct prod p = { .per_src = per_src };
	struct got g = { .stop_every = stop_every };
	pthread_t th;
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	cr_assert_geq(efd, 0);
	for (int s = 0; s < NSRC; s++)
		g.next[s] = 1;
	p.q = drainq_new(NSRC, max_per_src, efd);
	cr_assert(p.q);
	cr_assert_eq(pthread_create(&th, NULL, producer, &p), 0);
	for (int i = 0;; i++) {
		bool done = __atomic_load_n(&p.done, __ATOMIC_ACQUIRE);

		/* a slow consumer at first: the producer fills the queues */
		if (i < slow_takes)
			usleep(1000);
		drainq_take(p.q, take, &g);
		if (done) {
			drainq_take(p.q, take, &g);
			break;
		}
	}
	cr_assert_eq(pthread_join(th, NULL), 0);
	cr_assert_eq(g.bad_src, 0);
	cr_assert_eq(g.bad_order, 0, "%llu records out of their source's order",
		     (unsigned long long)g.bad_order);
	cr_assert_eq(g.n, per_src * NSRC, "%llu of %llu records came out",
		     (unsigned long long)g.n,
		     (unsigned long long)(per_src * NSRC));
	for (int s = 0; s < NSRC; s++)
		cr_assert_eq(g.next[s], per_src + 1);
	*waits = drainq_waits(p.q);
	drainq_free(p.q);
	close(efd);
}

Test(drain, queue_hands_every_record_on_in_each_sources_order)
{
	uint64_t waits;

	run(1 << 20, 200000, 0, 0, &waits);
}

/*
 * A queue of 4 records a source: each flush of the stage (128 records)
 * must wait for the consumer, and nothing is lost or reordered.
 */
Test(drain, a_full_queue_makes_the_producer_wait_and_loses_nothing)
{
	uint64_t waits;

	run(4, 20000, 20, 0, &waits);
	cr_assert_gt(waits, 0, "the producer never waited for room");
}

/* A consumer whose merge stops (its sink done) still gets every record. */
Test(drain, a_stopping_consumer_still_gets_every_record)
{
	uint64_t waits;

	run(64, 5000, 0, 7, &waits);
}

Test(drain, a_flush_tells_the_consumer_once_until_it_takes)
{
	struct drainq *q = drainq_new(1, 16, -1);
	union abicap_rec r;
	struct got g = { .next = { 1 } };

	cr_assert(q);
	cr_assert_not(drainq_flush(q));
	memset(&r, 0, sizeof(r));
	r.hdr.ts_ns = 1;
	drainq_push(q, 0, &r);
	/* staged only: the consumer sees it after the flush, not before */
	cr_assert_eq(drainq_take(q, take, &g), 0);
	cr_assert_eq(g.n, 0);
	cr_assert(drainq_flush(q));
	/* the consumer is told once until it takes the queue */
	r.hdr.ts_ns = 2;
	drainq_push(q, 0, &r);
	cr_assert_not(drainq_flush(q));
	drainq_take(q, take, &g);
	cr_assert_eq(g.n, 2);
	r.hdr.ts_ns = 3;
	drainq_push(q, 0, &r);
	cr_assert(drainq_flush(q));
	drainq_take(q, take, &g);
	cr_assert_eq(g.n, 3);
	drainq_free(q);
}

/* The auto rule: a thread after a window busy over 70%, up to the maximum. */
Test(drain, auto_adds_a_thread_only_past_the_busy_threshold)
{
	uint64_t s = 1000000000ull;

	cr_assert_eq(DRAIN_BUSY_PCT, 70);
	cr_assert(drain_should_add(s * 83 / 100, s, 0, 1));
	cr_assert(drain_should_add(s * 71 / 100, s, 0, 1));
	cr_assert_not(drain_should_add(s * 70 / 100, s, 0, 1));
	cr_assert_not(drain_should_add(s / 2, s, 0, 1));
	cr_assert_not(drain_should_add(0, s, 0, 1));
	/* at the maximum: none, however busy */
	cr_assert_not(drain_should_add(s, s, 1, 1));
	cr_assert_not(drain_should_add(s, s, 3, 3));
	cr_assert(drain_should_add(s, s, 2, 3));
	/* the share, not the absolute time: a 2 s window busy 1.5 s is 75% */
	cr_assert(drain_should_add(s * 3 / 2, 2 * s, 0, 4));
	cr_assert_not(drain_should_add(s, 2 * s, 0, 4));
	/* no window, or no thread allowed (one CPU ring) */
	cr_assert_not(drain_should_add(s, 0, 0, 1));
	cr_assert_not(drain_should_add(s, s, 0, 0));
	/* a window of hours does not overflow */
	cr_assert(drain_should_add(3600 * s, 3600 * s, 0, 1));
	cr_assert_not(drain_should_add(3600 * s / 2, 3600 * s, 0, 1));
}

Test(drain, auto_max_is_the_online_cpus_minus_one_within_the_rings)
{
	cr_assert_eq(drain_auto_max(2, 2), 1);
	cr_assert_eq(drain_auto_max(1, 2), 1);
	cr_assert_eq(drain_auto_max(4, 4), 3);
	cr_assert_eq(drain_auto_max(192, 192), DRAIN_AUTO_MAX);
	/* the main thread keeps a ring: one ring, no thread */
	cr_assert_eq(drain_auto_max(4, 1), 0);
	cr_assert_eq(drain_auto_max(8, 3), 2);
}

Test(drain, groups_split_the_rings_evenly)
{
	int first, n, next = 0;

	for (int g = 0; g < 3; g++) {
		drain_group_span(8, 3, g, &first, &n);
		cr_assert_eq(first, next);
		cr_assert_eq(n, g < 2 ? 3 : 2);
		next = first + n;
	}
	cr_assert_eq(next, 8);
	drain_group_span(2, 2, 1, &first, &n);
	cr_assert_eq(first, 1);
	cr_assert_eq(n, 1);
	drain_group_span(2, 1, 0, &first, &n);
	cr_assert_eq(first, 0);
	cr_assert_eq(n, 2);
}
