/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Drain threads (docs/transport.md, "Drain threads"): a thread that owns a
 * group of per-CPU ring buffers drains them, decodes the records and hands
 * them to the thread that merges and writes (the main thread) through a
 * drainq, one queue per source (CPU), and publishes after each complete pass
 * over its rings the time that pass began (drain_thread_drained()).
 *
 * The queue loses nothing: where a source's queue is full (its bound, or
 * memory) the producer waits for the consumer to take it, and the rings
 * fill, and drop in the kernel, counted there as without threads.
 */
#ifndef ABICAP_DRAIN_H
#define ABICAP_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event/record.h"

/* --drain-threads auto (the commands' default); 0: none, N: N threads */
#define DRAIN_AUTO (-1)
/*
 * auto: a thread is added when the main thread was busy (its own CPU time,
 * CLOCK_THREAD_CPUTIME_ID) over this share of a window of a second...
 */
#define DRAIN_BUSY_PCT 70
#define DRAIN_WINDOW_NS 1000000000ull
/* ...up to the online CPUs minus 1 (at least 1), and at most this many */
#define DRAIN_AUTO_MAX 8

/*
 * The auto rule, a pure function: add a thread after a window of window_ns
 * in which the main thread ran busy_ns, with `threads` running of `max`?
 */
bool drain_should_add(uint64_t busy_ns, uint64_t window_ns, int threads,
		      int max);

/* The most threads auto adds on a machine of `online` CPUs, `rings` rings. */
int drain_auto_max(int online, int rings);

/*
 * Group g of ngroups over nrings rings, split evenly (the first groups get
 * one more where it does not divide): its first ring and count.
 */
void drain_group_span(int nrings, int ngroups, int g, int *first, int *n);

/*
 * Records from one producer thread to one consumer thread, a queue per
 * source, each in the order put. The producer stages records (no lock) and
 * moves them into the queues on drainq_flush() or when its stage is full.
 */
struct drainq;

/*
 * max_per_src: the most records a source's queue holds before its producer
 * waits (at least the stage); notify_fd >= 0: an eventfd written (1) when
 * the producer waits for room, so that the consumer wakes to make it.
 */
struct drainq *drainq_new(int nsrc, size_t max_per_src, int notify_fd);
void drainq_free(struct drainq *q);

/* Producer: stage a record of source src (may flush, and wait). */
void drainq_push(struct drainq *q, int src, const union abicap_rec *r);
/*
 * Producer: move every staged record into the queues. True (and notify_fd
 * written) if there were some and the consumer has taken the queue since
 * the last true: it is woken once until it takes; false: none staged, or
 * it was told already.
 */
bool drainq_flush(struct drainq *q);

/*
 * Consumer: every record queued now, each source's in order, to fn(ctx,
 * src, r) (outside the lock). Returns the first non-zero fn returned (every
 * record is handed on all the same), else 0.
 */
typedef int (*drainq_fn)(void *ctx, int src, const union abicap_rec *r);
int drainq_take(struct drainq *q, drainq_fn fn, void *ctx);

/* Times the producer waited for room (a full queue). */
uint64_t drainq_waits(const struct drainq *q);

/*
 * A drain thread: in a loop, note the time, drain every ring of rb
 * (ringread_consume: its callbacks push into q), flush q (which wakes
 * the consumer), publish the time noted (release), and wait for
 * its rings (rb's epoll) or stop_fd, at most 100 ms. Once stop_fd is
 * readable it flushes and ends; the rings' rest is the joiner's.
 */
struct ringread;
struct drain_thread;

/* NULL with errno set if the thread could not start. */
struct drain_thread *drain_thread_start(struct ringread *rb,
					struct drainq *q, int stop_fd,
					int notify_fd);
/*
 * The time (CLOCK_MONOTONIC) the thread's last complete pass began, 0
 * before the first: everything its rings held then is in its queue (acquire).
 */
uint64_t drain_thread_drained(const struct drain_thread *t);
/* ringread_consume's first error in the thread (negative), else 0. */
int drain_thread_error(const struct drain_thread *t);
/* The thread has ended (its loop saw stop_fd, its last records flushed). */
bool drain_thread_done(const struct drain_thread *t);
/* Join and free (after stop_fd was written). Returns ringread_consume's error, if one. */
int drain_thread_join(struct drain_thread *t);

#endif
